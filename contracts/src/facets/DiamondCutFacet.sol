// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IDiamondCut} from "../interfaces/IDiamond.sol";
import {IAtelierErrors} from "../libraries/Errors.sol";
import {LibCore, LibDiamondStorage} from "../libraries/LibStorage.sol";
import {LibTable} from "../libraries/LibTable.sol";

/// @title ERC-2535 diamondCut for one collection, and freezing it for good.
/// @notice Changes apply to this collection only: they are recorded as overrides of the shared
/// default table (selector => facet, or "removed"), consulted by the router before the defaults.
/// Owner only. freezeUpgrades removes diamondCut permanently (a bit in the owner word that the
/// router, the loupe and diamondCut itself honour; nothing clears it).
contract DiamondCutFacet is IDiamondCut, IAtelierErrors {
    /// Emitted once, by freezeUpgrades (with DiamondCut removing the diamondCut selector).
    event UpgradesFrozen(address indexed owner);

    function diamondCut(FacetCut[] calldata cuts, address init, bytes calldata data) external {
        LibCore.enforceOwner();
        // the router refuses diamondCut once frozen; this guards a facet that delegatecalls here
        if (LibCore.ownerWord() & LibCore.UPGRADES_FROZEN != 0) revert UpgradesAreFrozen();
        (address[] memory df, bytes4[][] memory ds) = LibTable.defaults();
        LibDiamondStorage.Layout storage l = LibDiamondStorage.layout_();
        for (uint256 i; i < cuts.length; ++i) {
            FacetCut calldata cut = cuts[i];
            address facet = cut.facetAddress;
            if (cut.functionSelectors.length == 0) revert CutEmptySelectors();
            if (cut.action != FacetCutAction.Remove && facet.code.length == 0) revert CutNoCode(facet);
            for (uint256 j; j < cut.functionSelectors.length; ++j) {
                bytes4 sel = cut.functionSelectors[j];
                address def = LibTable.defaultFacet(df, ds, sel);
                address o = l.facetOf[sel];
                address current = o == address(0) ? def : (o == LibDiamondStorage.REMOVED ? address(0) : o);
                if (cut.action == FacetCutAction.Add) {
                    if (current != address(0)) revert CutSelectorExists(sel);
                    _set(l, sel, facet, def);
                } else if (cut.action == FacetCutAction.Replace) {
                    if (current == address(0)) revert CutSelectorMissing(sel);
                    if (current == facet) revert CutSameFacet(sel);
                    _set(l, sel, facet, def);
                } else {
                    if (facet != address(0)) revert CutRemoveFacetNotZero(facet);
                    if (current == address(0)) revert CutSelectorMissing(sel);
                    _set(l, sel, def != address(0) ? LibDiamondStorage.REMOVED : address(0), def);
                }
            }
        }
        uint256 w = LibCore.mintWord();
        LibCore.setMintWord(l.selectors.length > 0 ? w | LibCore.HAS_OVERRIDES : w & ~LibCore.HAS_OVERRIDES);
        emit DiamondCut(cuts, init, data);
        // ERC-2535: with _init = 0 the _calldata is not executed (it may hold anything)
        if (init == address(0)) return;
        if (init.code.length == 0) revert CutNoCode(init);
        (bool ok, bytes memory reason) = init.delegatecall(data);
        if (!ok) {
            if (reason.length == 0) revert CutInitFailed(init);
            assembly {
                revert(add(reason, 32), mload(reason))
            }
        }
    }

    /// @notice Owner only, once: removes diamondCut from this collection for good. The loupe stops
    /// reporting it (facetAddress(0x1f931c1c) == 0, supportsInterface(0x1f931c1c) == false) and
    /// any later diamondCut reverts with UpgradesAreFrozen(). Emits DiamondCut(Remove diamondCut)
    /// when diamondCut was still callable, then UpgradesFrozen(owner).
    function freezeUpgrades() external {
        LibCore.enforceOwner();
        uint256 w = LibCore.ownerWord();
        if (w & LibCore.UPGRADES_FROZEN != 0) revert UpgradesAreFrozen();
        (address[] memory df, bytes4[][] memory ds) = LibTable.defaults();
        bool cuttable = LibTable.effective(df, ds, IDiamondCut.diamondCut.selector) != address(0);
        LibCore.setOwnerWord(w | LibCore.UPGRADES_FROZEN);
        if (cuttable) {
            FacetCut[] memory removal = new FacetCut[](1);
            removal[0].action = FacetCutAction.Remove;
            removal[0].functionSelectors = new bytes4[](1);
            removal[0].functionSelectors[0] = IDiamondCut.diamondCut.selector;
            emit DiamondCut(removal, address(0), "");
        }
        emit UpgradesFrozen(msg.sender);
    }

    /// @notice True once freezeUpgrades was called.
    function upgradesFrozen() external view returns (bool) {
        return LibCore.ownerWord() & LibCore.UPGRADES_FROZEN != 0;
    }

    /// Record `target` for `sel`; an entry equal to the default is dropped (no override needed).
    function _set(LibDiamondStorage.Layout storage l, bytes4 sel, address target, address def) private {
        uint256 pos = l.position[sel];
        if (target == def) {
            if (pos == 0) return;
            uint256 last = l.selectors.length;
            if (pos != last) {
                bytes4 moved = l.selectors[last - 1];
                l.selectors[pos - 1] = moved;
                l.position[moved] = pos;
            }
            l.selectors.pop();
            delete l.position[sel];
            delete l.facetOf[sel];
            return;
        }
        l.facetOf[sel] = target;
        if (pos == 0) {
            l.selectors.push(sel);
            l.position[sel] = l.selectors.length;
        }
    }
}
