// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IDiamondLoupe} from "../interfaces/IDiamond.sol";
import {LibDiamondStorage} from "../libraries/LibStorage.sol";
import {LibTable} from "../libraries/LibTable.sol";

/// @title ERC-2535 loupe and ERC-165 for a collection.
/// @notice Reports the shared default facet table merged with this collection's own diamondCut
/// overrides, i.e. exactly where each selector is dispatched.
contract DiamondLoupeFacet is IDiamondLoupe {
    function facets() external view returns (Facet[] memory result) {
        (bytes4[] memory sels, address[] memory owners, uint256 n) = _pairs();
        address[] memory addrs = _unique(owners, n);
        result = new Facet[](addrs.length);
        for (uint256 i; i < addrs.length; ++i) {
            result[i].facetAddress = addrs[i];
            result[i].functionSelectors = _selectorsOf(sels, owners, n, addrs[i]);
        }
    }

    function facetFunctionSelectors(address facet) external view returns (bytes4[] memory) {
        (bytes4[] memory sels, address[] memory owners, uint256 n) = _pairs();
        return _selectorsOf(sels, owners, n, facet);
    }

    function facetAddresses() external view returns (address[] memory) {
        (, address[] memory owners, uint256 n) = _pairs();
        return _unique(owners, n);
    }

    function facetAddress(bytes4 selector) external view returns (address) {
        (address[] memory f, bytes4[][] memory s) = LibTable.defaults();
        return LibTable.effective(f, s, selector);
    }

    /// @notice ERC-165: ERC-165, ERC-721, ERC-721 metadata, ERC-173, ERC-2981, ERC-4906, the
    /// ERC-2535 loupe and diamondCut (until freezeUpgrades); a diamondCut init may change answers
    /// for this collection.
    function supportsInterface(bytes4 interfaceId) external view returns (bool) {
        if (LibTable.frozenOut(interfaceId)) return false; // diamondCut's interface id is its selector
        uint8 o = LibDiamondStorage.layout_().interfaceOverride[interfaceId];
        if (o == 1) return interfaceId != 0xffffffff;
        if (o == 2) return false;
        return interfaceId == 0x01ffc9a7 // ERC-165
            || interfaceId == 0x80ac58cd // ERC-721
            || interfaceId == 0x5b5e139f // ERC-721 metadata
            || interfaceId == 0x7f5828d0 // ERC-173
            || interfaceId == 0x2a55205a // ERC-2981
            || interfaceId == 0x49064906 // ERC-4906
            || interfaceId == 0x48e2b093 // ERC-2535 loupe
            || interfaceId == 0x1f931c1c; // ERC-2535 diamondCut
    }

    /// Every (selector, facet) pair in dispatch order: defaults (or their override), then added selectors.
    function _pairs() private view returns (bytes4[] memory sels, address[] memory owners, uint256 n) {
        (address[] memory f, bytes4[][] memory s) = LibTable.defaults();
        LibDiamondStorage.Layout storage l = LibDiamondStorage.layout_();
        bool frozen = LibTable.frozenOut(LibTable.DIAMOND_CUT);
        uint256 total = l.selectors.length;
        for (uint256 i; i < s.length; ++i) {
            total += s[i].length;
        }
        sels = new bytes4[](total);
        owners = new address[](total);
        for (uint256 i; i < f.length; ++i) {
            for (uint256 j; j < s[i].length; ++j) {
                bytes4 sel = s[i][j];
                address o = l.facetOf[sel];
                if (o == LibDiamondStorage.REMOVED || (frozen && sel == LibTable.DIAMOND_CUT)) continue;
                sels[n] = sel;
                owners[n] = o == address(0) ? f[i] : o;
                ++n;
            }
        }
        for (uint256 k; k < l.selectors.length; ++k) {
            bytes4 sel = l.selectors[k];
            address o = l.facetOf[sel];
            if (o == LibDiamondStorage.REMOVED || LibTable.defaultFacet(f, s, sel) != address(0)) continue;
            sels[n] = sel;
            owners[n] = o;
            ++n;
        }
    }

    function _unique(address[] memory owners, uint256 n) private pure returns (address[] memory out) {
        address[] memory tmp = new address[](n);
        uint256 m;
        for (uint256 i; i < n; ++i) {
            bool seen;
            for (uint256 j; j < m; ++j) {
                if (tmp[j] == owners[i]) {
                    seen = true;
                    break;
                }
            }
            if (!seen) tmp[m++] = owners[i];
        }
        out = new address[](m);
        for (uint256 i; i < m; ++i) {
            out[i] = tmp[i];
        }
    }

    function _selectorsOf(bytes4[] memory sels, address[] memory owners, uint256 n, address facet)
        private
        pure
        returns (bytes4[] memory out)
    {
        uint256 m;
        for (uint256 i; i < n; ++i) {
            if (owners[i] == facet) ++m;
        }
        out = new bytes4[](m);
        m = 0;
        for (uint256 i; i < n; ++i) {
            if (owners[i] == facet) out[m++] = sels[i];
        }
    }
}
