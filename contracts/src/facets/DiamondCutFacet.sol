// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IDiamondCut} from "../interfaces/IDiamond.sol";
import {IAtelierErrors} from "../libraries/Errors.sol";
import {LibCore, LibDiamondStorage} from "../libraries/LibStorage.sol";
import {LibTable} from "../libraries/LibTable.sol";

/// @title ERC-2535 diamondCut for one collection.
/// @notice Changes apply to this collection only: they are recorded as overrides of the shared
/// default table (selector => facet, or "removed"), consulted by the router before the defaults.
/// Owner only.
contract DiamondCutFacet is IDiamondCut, IAtelierErrors {
    function diamondCut(FacetCut[] calldata cuts, address init, bytes calldata data) external {
        LibCore.enforceOwner();
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
        if (init == address(0)) {
            if (data.length != 0) revert CutInitFailed(address(0));
            return;
        }
        if (init.code.length == 0) revert CutNoCode(init);
        (bool ok, bytes memory reason) = init.delegatecall(data);
        if (!ok) {
            if (reason.length == 0) revert CutInitFailed(init);
            assembly {
                revert(add(reason, 32), mload(reason))
            }
        }
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
