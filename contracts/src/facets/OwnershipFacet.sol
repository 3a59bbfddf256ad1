// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC173} from "../interfaces/IDiamond.sol";
import {LibCore} from "../libraries/LibStorage.sol";

/// @title ERC-173 ownership of a collection.
contract OwnershipFacet is IERC173 {
    function owner() external view returns (address) {
        return LibCore.owner();
    }

    /// @notice Owner only. address(0) renounces ownership.
    function transferOwnership(address newOwner) external {
        LibCore.enforceOwner();
        uint256 w = LibCore.ownerWord();
        LibCore.setOwnerWord((w & ~LibCore.ADDRESS_MASK) | uint256(uint160(newOwner)));
        emit OwnershipTransferred(address(uint160(w)), newOwner);
    }
}
