// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IAtelierErrors} from "./libraries/Errors.sol";
import {LibCore, LibDiamondStorage} from "./libraries/LibStorage.sol";
import {DiamondCutFacet} from "./facets/DiamondCutFacet.sol";
import {DiamondLoupeFacet} from "./facets/DiamondLoupeFacet.sol";
import {OwnershipFacet} from "./facets/OwnershipFacet.sol";
import {ERC721Facet} from "./facets/ERC721Facet.sol";
import {MintFacet} from "./facets/MintFacet.sol";
import {ContractURIFacet} from "./facets/ContractURIFacet.sol";
import {MetadataUpdateFacet} from "./facets/MetadataUpdateFacet.sol";
import {RoyaltyFacet} from "./facets/RoyaltyFacet.sol";
import {FairnessFacet} from "./facets/FairnessFacet.sol";
import {SaleFacet} from "./facets/SaleFacet.sol";

/// @title The shared, immutable default facet table of every collection of one factory.
/// @notice Collections' proxies delegatecall this contract for every selector outside their fast
/// path (and for every selector once they have overrides). Running in the collection's context,
/// it dispatches to the collection's own override for the selector (set by diamondCut) when there
/// is one, otherwise to the default facet, which it knows from its code (immutables), so the shared
/// table costs no storage in any collection.
/// Called directly (not through a proxy) with any calldata, it returns the default table ABI-encoded
/// as (address[] facets, bytes4[][] selectors); the loupe and the factory use this.
/// It has no external functions on purpose: every selector of a collection is the facets'.
contract DiamondRouter {
    address private immutable SELF;
    address internal immutable CUT;
    address internal immutable LOUPE;
    address internal immutable OWNERSHIP;
    address internal immutable ERC721;
    address internal immutable MINT;
    address internal immutable CONTRACT_URI;
    address internal immutable METADATA_UPDATE;
    address internal immutable ROYALTY;
    address internal immutable FAIRNESS;
    address internal immutable SALE;

    constructor(address[10] memory facetAddresses) {
        SELF = address(this);
        CUT = facetAddresses[0];
        LOUPE = facetAddresses[1];
        OWNERSHIP = facetAddresses[2];
        ERC721 = facetAddresses[3];
        MINT = facetAddresses[4];
        CONTRACT_URI = facetAddresses[5];
        METADATA_UPDATE = facetAddresses[6];
        ROYALTY = facetAddresses[7];
        FAIRNESS = facetAddresses[8];
        SALE = facetAddresses[9];
    }

    fallback() external payable {
        if (address(this) == SELF) {
            (address[] memory f, bytes4[][] memory s) = _table();
            bytes memory out = abi.encode(f, s);
            assembly {
                return(add(out, 32), mload(out))
            }
        }
        // freezeUpgrades removed diamondCut for good, whatever the overrides say
        if (msg.sig == DiamondCutFacet.diamondCut.selector) {
            if (LibCore.ownerWord() & LibCore.UPGRADES_FROZEN != 0) revert IAtelierErrors.UpgradesAreFrozen();
        }
        address facet;
        if (LibCore.mintWord() & LibCore.HAS_OVERRIDES != 0) {
            facet = LibDiamondStorage.layout_().facetOf[msg.sig];
            if (facet == LibDiamondStorage.REMOVED) revert IAtelierErrors.FunctionNotFound(msg.sig);
        }
        if (facet == address(0)) facet = _defaultFacet(msg.sig);
        if (facet == address(0)) revert IAtelierErrors.FunctionNotFound(msg.sig);
        assembly {
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), facet, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            if iszero(ok) { revert(0, returndatasize()) }
            return(0, returndatasize())
        }
    }

    /// The default facet of a selector. Must list exactly the selectors of _table()
    /// (test/contracts/diamond.test.ts checks that every selector dispatches where the loupe says).
    function _defaultFacet(bytes4 s) private view returns (address) {
        // purchase first: the collector pays for every comparison before it
        if (s == SaleFacet.purchase.selector) return SALE;
        // ERC721Facet (most used first)
        if (
            s == ERC721Facet.transferFrom.selector || s == ERC721Facet.approve.selector
                || s == ERC721Facet.setApprovalForAll.selector || s == ERC721Facet.balanceOf.selector
                || s == ERC721Facet.ownerOf.selector || s == ERC721Facet.getApproved.selector
                || s == ERC721Facet.isApprovedForAll.selector || s == ERC721Facet.name.selector
                || s == ERC721Facet.symbol.selector || s == ERC721Facet.tokenURI.selector
                || s == ERC721Facet.setBaseURI.selector || s == bytes4(0x42842e0e) || s == bytes4(0xb88d4fde)
        ) return ERC721;
        if (
            s == MintFacet.mintTo.selector || s == MintFacet.totalSupply.selector || s == MintFacet.maxSupply.selector
                || s == MintFacet.mintActive.selector || s == MintFacet.minter.selector
                || s == MintFacet.setMintActive.selector || s == MintFacet.setMinter.selector
                || s == MintFacet.setMaxSupply.selector
        ) return MINT;
        if (s == RoyaltyFacet.royaltyInfo.selector || s == RoyaltyFacet.setDefaultRoyalty.selector) return ROYALTY;
        if (s == ContractURIFacet.contractURI.selector || s == ContractURIFacet.setContractURI.selector) {
            return CONTRACT_URI;
        }
        if (s == OwnershipFacet.owner.selector || s == OwnershipFacet.transferOwnership.selector) return OWNERSHIP;
        if (
            s == DiamondLoupeFacet.supportsInterface.selector || s == DiamondLoupeFacet.facets.selector
                || s == DiamondLoupeFacet.facetFunctionSelectors.selector
                || s == DiamondLoupeFacet.facetAddresses.selector || s == DiamondLoupeFacet.facetAddress.selector
        ) return LOUPE;
        if (
            s == MetadataUpdateFacet.emitMetadataUpdate.selector
                || s == MetadataUpdateFacet.emitBatchMetadataUpdate.selector
                || s == MetadataUpdateFacet.freezeMetadata.selector || s == MetadataUpdateFacet.metadataFrozen.selector
        ) return METADATA_UPDATE;
        if (
            s == DiamondCutFacet.diamondCut.selector || s == DiamondCutFacet.freezeUpgrades.selector
                || s == DiamondCutFacet.upgradesFrozen.selector
        ) return CUT;
        if (
            s == FairnessFacet.commitSeed.selector || s == FairnessFacet.reveal.selector
                || s == FairnessFacet.seedCommitment.selector || s == FairnessFacet.revealedSeed.selector
                || s == FairnessFacet.setProvenance.selector || s == FairnessFacet.provenanceHash.selector
        ) return FAIRNESS;
        if (
            s == SaleFacet.setSale.selector || s == SaleFacet.setSalePaused.selector || s == SaleFacet.saleConfig.selector
                || s == SaleFacet.saleMinted.selector
        ) return SALE;
        return address(0);
    }

    function _table() private view returns (address[] memory f, bytes4[][] memory s) {
        f = new address[](10);
        s = new bytes4[][](10);
        f[0] = CUT;
        s[0] = new bytes4[](3);
        s[0][0] = DiamondCutFacet.diamondCut.selector;
        s[0][1] = DiamondCutFacet.freezeUpgrades.selector;
        s[0][2] = DiamondCutFacet.upgradesFrozen.selector;
        f[1] = LOUPE;
        s[1] = new bytes4[](5);
        s[1][0] = DiamondLoupeFacet.facets.selector;
        s[1][1] = DiamondLoupeFacet.facetFunctionSelectors.selector;
        s[1][2] = DiamondLoupeFacet.facetAddresses.selector;
        s[1][3] = DiamondLoupeFacet.facetAddress.selector;
        s[1][4] = DiamondLoupeFacet.supportsInterface.selector;
        f[2] = OWNERSHIP;
        s[2] = _sels2(OwnershipFacet.owner.selector, OwnershipFacet.transferOwnership.selector);
        f[3] = ERC721;
        s[3] = new bytes4[](13);
        s[3][0] = ERC721Facet.balanceOf.selector;
        s[3][1] = ERC721Facet.ownerOf.selector;
        s[3][2] = bytes4(0xb88d4fde); // safeTransferFrom(address,address,uint256,bytes)
        s[3][3] = bytes4(0x42842e0e); // safeTransferFrom(address,address,uint256)
        s[3][4] = ERC721Facet.transferFrom.selector;
        s[3][5] = ERC721Facet.approve.selector;
        s[3][6] = ERC721Facet.setApprovalForAll.selector;
        s[3][7] = ERC721Facet.getApproved.selector;
        s[3][8] = ERC721Facet.isApprovedForAll.selector;
        s[3][9] = ERC721Facet.name.selector;
        s[3][10] = ERC721Facet.symbol.selector;
        s[3][11] = ERC721Facet.tokenURI.selector;
        s[3][12] = ERC721Facet.setBaseURI.selector;
        f[4] = MINT;
        s[4] = new bytes4[](8);
        s[4][0] = MintFacet.mintTo.selector;
        s[4][1] = MintFacet.setMintActive.selector;
        s[4][2] = MintFacet.mintActive.selector;
        s[4][3] = MintFacet.setMinter.selector;
        s[4][4] = MintFacet.minter.selector;
        s[4][5] = MintFacet.setMaxSupply.selector;
        s[4][6] = MintFacet.maxSupply.selector;
        s[4][7] = MintFacet.totalSupply.selector;
        f[5] = CONTRACT_URI;
        s[5] = _sels2(ContractURIFacet.contractURI.selector, ContractURIFacet.setContractURI.selector);
        f[6] = METADATA_UPDATE;
        s[6] = new bytes4[](4);
        s[6][0] = MetadataUpdateFacet.emitMetadataUpdate.selector;
        s[6][1] = MetadataUpdateFacet.emitBatchMetadataUpdate.selector;
        s[6][2] = MetadataUpdateFacet.freezeMetadata.selector;
        s[6][3] = MetadataUpdateFacet.metadataFrozen.selector;
        f[7] = ROYALTY;
        s[7] = _sels2(RoyaltyFacet.royaltyInfo.selector, RoyaltyFacet.setDefaultRoyalty.selector);
        f[8] = FAIRNESS;
        s[8] = new bytes4[](6);
        s[8][0] = FairnessFacet.commitSeed.selector;
        s[8][1] = FairnessFacet.reveal.selector;
        s[8][2] = FairnessFacet.seedCommitment.selector;
        s[8][3] = FairnessFacet.revealedSeed.selector;
        s[8][4] = FairnessFacet.setProvenance.selector;
        s[8][5] = FairnessFacet.provenanceHash.selector;
        f[9] = SALE;
        s[9] = new bytes4[](5);
        s[9][0] = SaleFacet.purchase.selector;
        s[9][1] = SaleFacet.setSale.selector;
        s[9][2] = SaleFacet.setSalePaused.selector;
        s[9][3] = SaleFacet.saleConfig.selector;
        s[9][4] = SaleFacet.saleMinted.selector;
    }

    function _sels2(bytes4 a, bytes4 b) private pure returns (bytes4[] memory r) {
        r = new bytes4[](2);
        r[0] = a;
        r[1] = b;
    }
}
