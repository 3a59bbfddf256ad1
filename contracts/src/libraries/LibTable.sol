// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {LibCore, LibDiamondStorage} from "./LibStorage.sol";
import {LibProxy} from "./LibProxy.sol";

/// @title The facet table of a collection = the shared default table + the collection's overrides.
library LibTable {
    error RouterQueryFailed(address router);

    /// The shared default table, asked from the router named in this collection's code.
    function defaults() internal view returns (address[] memory facets, bytes4[][] memory selectors) {
        address router = LibProxy.router();
        (bool ok, bytes memory out) = router.staticcall("");
        if (!ok) revert RouterQueryFailed(router);
        return abi.decode(out, (address[], bytes4[][]));
    }

    function defaultFacet(address[] memory facets, bytes4[][] memory selectors, bytes4 selector)
        internal
        pure
        returns (address)
    {
        for (uint256 i; i < facets.length; ++i) {
            bytes4[] memory s = selectors[i];
            for (uint256 j; j < s.length; ++j) {
                if (s[j] == selector) return facets[i];
            }
        }
        return address(0);
    }

    /// diamondCut(FacetCut[],address,bytes)
    bytes4 internal constant DIAMOND_CUT = 0x1f931c1c;

    /// True when `selector` is diamondCut and the owner froze upgrades (no facet answers it any more).
    function frozenOut(bytes4 selector) internal view returns (bool) {
        return selector == DIAMOND_CUT && LibCore.ownerWord() & LibCore.UPGRADES_FROZEN != 0;
    }

    /// The facet that answers `selector` in this collection (address(0) when none).
    function effective(address[] memory facets, bytes4[][] memory selectors, bytes4 selector)
        internal
        view
        returns (address)
    {
        if (frozenOut(selector)) return address(0);
        address o = LibDiamondStorage.layout_().facetOf[selector];
        if (o == LibDiamondStorage.REMOVED) return address(0);
        if (o != address(0)) return o;
        return defaultFacet(facets, selectors, selector);
    }
}
