// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC4906Events, IMetadataFreezeEvents, IMintEvents} from "../interfaces/IEvents.sol";
import {IAtelierErrors} from "../libraries/Errors.sol";
import {LibContractURIStorage, LibCore, LibERC721Storage} from "../libraries/LibStorage.sol";
import {LibProxy} from "../libraries/LibProxy.sol";

/// @title ERC-4906 metadata update signals (for marketplaces and indexers).
/// @notice setBaseURI (ERC721Facet) emits BatchMetadataUpdate(1, type(uint256).max) itself.
contract MetadataUpdateFacet is IERC4906Events, IMetadataFreezeEvents, IMintEvents, IAtelierErrors {
    /// @notice Owner or minter. Emits MetadataUpdate(tokenId), e.g. when a token's artwork is ready.
    function emitMetadataUpdate(uint256 tokenId) external {
        LibCore.enforceOwnerOrMinter();
        emit MetadataUpdate(tokenId);
    }

    /// @notice Owner or minter. Emits BatchMetadataUpdate(fromTokenId, toTokenId), bounds inclusive.
    function emitBatchMetadataUpdate(uint256 fromTokenId, uint256 toTokenId) external {
        LibCore.enforceOwnerOrMinter();
        if (fromTokenId > toTokenId) revert InvalidRange(fromTokenId, toTokenId);
        emit BatchMetadataUpdate(fromTokenId, toTokenId);
    }

    /// @notice Owner only, once: baseURI and contractURI can never change again (their setters revert
    /// MetadataIsFrozen), and maxSupply becomes the supply minted so far, so no token is minted
    /// that the frozen metadata does not hold (setMaxSupply reverts MetadataIsFrozen from then on).
    /// Emits MetadataFrozen with both URIs as they now stand, MaxSupplyChanged when maxSupply was
    /// above the supply, and one BatchMetadataUpdate over every token minted so far.
    function freezeMetadata() external {
        LibCore.enforceOwner();
        uint256 w = LibCore.ownerWord();
        if (w & LibCore.METADATA_FROZEN != 0) revert MetadataIsFrozen();
        LibCore.setOwnerWord(w | LibCore.METADATA_FROZEN);
        (string memory base, string memory contractUri) = LibProxy.initialURIs();
        if (w & LibCore.BASE_URI_SET != 0) base = LibERC721Storage.layout_().baseURI;
        if (w & LibCore.CONTRACT_URI_SET != 0) contractUri = LibContractURIStorage.layout_().contractURI;
        emit MetadataFrozen(base, contractUri);
        uint256 m = LibCore.mintWord();
        uint256 supply = ((m >> LibCore.NEXT_SHIFT) & LibCore.MASK40) - 1;
        if ((m >> LibCore.MAX_SHIFT) & LibCore.MASK40 != supply) {
            LibCore.setMintWord((m & ~(LibCore.MASK40 << LibCore.MAX_SHIFT)) | (supply << LibCore.MAX_SHIFT));
            emit MaxSupplyChanged(supply);
        }
        if (supply > 0) emit BatchMetadataUpdate(1, supply);
    }

    /// @notice Whether freezeMetadata was called.
    function metadataFrozen() external view returns (bool) {
        return LibCore.ownerWord() & LibCore.METADATA_FROZEN != 0;
    }
}
