// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IAtelierErrors} from "../libraries/Errors.sol";
import {LibCore, LibRoyaltyStorage} from "../libraries/LibStorage.sol";
import {LibProxy} from "../libraries/LibProxy.sol";

/// @title ERC-2981 royalties (one default royalty per collection).
contract RoyaltyFacet is IAtelierErrors {
    event DefaultRoyaltyChanged(address indexed receiver, uint96 feeBps);

    /// @notice (receiver, salePrice * feeBps / 10000). The fee applies to every token.
    function royaltyInfo(uint256, uint256 salePrice) external view returns (address receiver, uint256 royaltyAmount) {
        uint256 w = LibCore.ownerWord();
        receiver = w & LibCore.ROYALTY_RECEIVER_SET != 0
            ? address(uint160(LibRoyaltyStorage.word()))
            : LibProxy.initialRoyaltyReceiver();
        royaltyAmount = (salePrice * ((w >> LibCore.ROYALTY_SHIFT) & 0xffff)) / 10_000;
    }

    /// @notice Owner only. feeBps <= 10000; receiver may be zero only with a zero fee.
    function setDefaultRoyalty(address receiver, uint96 feeBps) external {
        LibCore.enforceOwner();
        if (feeBps > 10_000 || (receiver == address(0) && feeBps != 0)) revert InvalidRoyalty(receiver, feeBps);
        LibRoyaltyStorage.setWord(uint256(uint160(receiver)));
        uint256 w = LibCore.ownerWord() & ~(uint256(0xffff) << LibCore.ROYALTY_SHIFT);
        LibCore.setOwnerWord(w | (uint256(feeBps) << LibCore.ROYALTY_SHIFT) | LibCore.ROYALTY_RECEIVER_SET);
        emit DefaultRoyaltyChanged(receiver, feeBps);
    }
}
