// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @notice Errors shared by the facets (ERC-721 errors come from ERC-6093, IERC721Errors).
interface IAtelierErrors {
    /// The caller is not the collection owner.
    error NotOwner(address account);
    /// The caller is neither the collection owner nor its minter.
    error NotOwnerOrMinter(address account);
    /// Minting is switched off (setMintActive(false)).
    error MintNotActive();
    /// quantity must be at least 1.
    error InvalidQuantity();
    /// Minting would exceed maxSupply.
    error MaxSupplyExceeded(uint256 requestedTotal, uint256 maxSupply);
    /// maxSupply below totalSupply or above the 40-bit limit.
    error InvalidMaxSupply(uint256 maxSupply);
    /// Royalty above 100% or a zero receiver with a non-zero fee.
    error InvalidRoyalty(address receiver, uint256 bps);
    /// fromTokenId > toTokenId.
    error InvalidRange(uint256 fromTokenId, uint256 toTokenId);
    /// No facet answers this selector.
    error FunctionNotFound(bytes4 selector);
    /// diamondCut errors.
    error CutNoCode(address facet);
    error CutSelectorExists(bytes4 selector);
    error CutSelectorMissing(bytes4 selector);
    error CutSameFacet(bytes4 selector);
    error CutRemoveFacetNotZero(address facet);
    error CutInitFailed(address init);
    error CutEmptySelectors();
    /// The owner froze upgrades (freezeUpgrades): diamondCut is gone for good.
    error UpgradesAreFrozen();
    /// The owner froze the metadata (freezeMetadata): baseURI and contractURI can never change again.
    error MetadataIsFrozen();
    /// A URI longer than LibCore.MAX_URI_BYTES (field: "baseURI" or "contractURI"; docs/contracts.md "URI limits").
    error URITooLong(string field, uint256 length, uint256 maxLength);
}
