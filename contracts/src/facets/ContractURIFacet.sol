// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC7572Events} from "../interfaces/IEvents.sol";
import {LibCore, LibContractURIStorage} from "../libraries/LibStorage.sol";
import {LibProxy} from "../libraries/LibProxy.sol";
import {IAtelierErrors} from "../libraries/Errors.sol";

/// @title ERC-7572 collection metadata URI.
contract ContractURIFacet is IERC7572Events, IAtelierErrors {
    function contractURI() external view returns (string memory) {
        if (LibCore.ownerWord() & LibCore.CONTRACT_URI_SET != 0) return LibContractURIStorage.layout_().contractURI;
        (, string memory uri) = LibProxy.initialURIs();
        return uri;
    }

    /// @notice Owner only. Emits ContractURIUpdated().
    function setContractURI(string calldata uri) external {
        LibCore.enforceOwner();
        if (LibCore.ownerWord() & LibCore.METADATA_FROZEN != 0) revert MetadataIsFrozen();
        LibCore.enforceURILength("contractURI", bytes(uri).length);
        LibContractURIStorage.layout_().contractURI = uri;
        LibCore.setOwnerWord(LibCore.ownerWord() | LibCore.CONTRACT_URI_SET);
        emit ContractURIUpdated();
    }
}
