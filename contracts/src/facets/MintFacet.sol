// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC721Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {IAtelierErrors} from "../libraries/Errors.sol";
import {LibCore} from "../libraries/LibStorage.sol";
import {IMintEvents} from "../interfaces/IEvents.sol";
import {LibMint} from "../libraries/LibMint.sol";

/// @title Minting and supply configuration of a collection.
/// @notice mintTo writes one run head (ownership word) per run of at most MAX_BATCH (10) tokens, the
/// recipient's balance, the token counter (packed with the minter, maxSupply and the mint switch,
/// so one storage word serves access control, limits and the counter) and one Transfer event per
/// token. Token ids are sequential and start at 1.
contract MintFacet is IAtelierErrors, IMintEvents {
    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);

    uint256 private constant MAX_CLEAR = ~(LibCore.MASK40 << LibCore.MAX_SHIFT);

    /// @notice Mints `quantity` tokens with the next sequential ids to `to`. Owner or minter only;
    /// requires mintActive and totalSupply + quantity <= maxSupply. Not a safe mint: `to` is not
    /// called back (the platform mints to wallets it knows).
    function mintTo(address to, uint256 quantity) external {
        uint256 w = LibCore.mintWord();
        if (msg.sender != address(uint160(w)) && msg.sender != LibCore.owner()) {
            revert NotOwnerOrMinter(msg.sender);
        }
        if (w & LibCore.MINT_ACTIVE == 0) revert MintNotActive();
        if (to == address(0)) revert IERC721Errors.ERC721InvalidReceiver(address(0));
        if (quantity == 0) revert InvalidQuantity();
        uint256 start = (w >> LibCore.NEXT_SHIFT) & LibCore.MASK40;
        uint256 end = start + quantity; // checked: reverts on overflow
        uint256 max = (w >> LibCore.MAX_SHIFT) & LibCore.MASK40;
        if (end - 1 > max) revert MaxSupplyExceeded(end - 1, max);
        LibMint.mint(w, to, start, end);
    }

    /// @notice Number of tokens minted (ids 1..totalSupply exist).
    function totalSupply() external view returns (uint256) {
        return ((LibCore.mintWord() >> LibCore.NEXT_SHIFT) & LibCore.MASK40) - 1;
    }

    function maxSupply() external view returns (uint256) {
        return (LibCore.mintWord() >> LibCore.MAX_SHIFT) & LibCore.MASK40;
    }

    function mintActive() external view returns (bool) {
        return LibCore.mintWord() & LibCore.MINT_ACTIVE != 0;
    }

    function minter() external view returns (address) {
        return LibCore.minter();
    }

    /// @notice Owner only.
    function setMintActive(bool active) external {
        LibCore.enforceOwner();
        uint256 w = LibCore.mintWord();
        LibCore.setMintWord(active ? w | LibCore.MINT_ACTIVE : w & ~LibCore.MINT_ACTIVE);
        emit MintActiveChanged(active);
    }

    /// @notice Owner only. address(0) removes the minter (then only the owner mints).
    function setMinter(address newMinter) external {
        LibCore.enforceOwner();
        uint256 w = LibCore.mintWord();
        LibCore.setMintWord((w & ~LibCore.ADDRESS_MASK) | uint256(uint160(newMinter)));
        emit MinterChanged(address(uint160(w)), newMinter);
    }

    /// @notice Owner only. Not below totalSupply, below 2^40; never once the metadata is frozen
    /// (freezeMetadata fixed it at the supply the frozen bundle holds).
    function setMaxSupply(uint256 newMaxSupply) external {
        LibCore.enforceOwner();
        if (LibCore.ownerWord() & LibCore.METADATA_FROZEN != 0) revert MetadataIsFrozen();
        uint256 w = LibCore.mintWord();
        uint256 supply = ((w >> LibCore.NEXT_SHIFT) & LibCore.MASK40) - 1;
        if (newMaxSupply < supply || newMaxSupply > LibCore.MASK40 - 1) revert InvalidMaxSupply(newMaxSupply);
        LibCore.setMintWord((w & MAX_CLEAR) | (newMaxSupply << LibCore.MAX_SHIFT));
        emit MaxSupplyChanged(newMaxSupply);
    }
}
