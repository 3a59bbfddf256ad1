// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {LibCore, LibERC721Storage, OWNERSHIP_MAX_BATCH, OWNERSHIP_SPAN_SHIFT} from "./LibStorage.sol";

/// @title The one mint write shared by MintFacet.mintTo and SaleFacet.purchase.
/// @notice Both paths advance the same counter in the mint word and write the same run heads, so
/// token ids stay sequential and maxSupply holds whoever mints. Callers check access, the switch,
/// the quantity and the supply first.
library LibMint {
    bytes32 private constant TRANSFER_SIG = 0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef;
    uint256 private constant BASE = uint256(LibERC721Storage.OWNERSHIPS);
    uint256 private constant NEXT_CLEAR = ~(LibCore.MASK40 << LibCore.NEXT_SHIFT);

    /// Mints ids start..end-1 to `to`; `w` is the mint word read by the caller.
    function mint(uint256 w, address to, uint256 start, uint256 end) internal {
        LibCore.setMintWord((w & NEXT_CLEAR) | (end << LibCore.NEXT_SHIFT));
        unchecked {
            LibERC721Storage.layout_().balances[to] += end - start;
        }
        uint256 base = BASE;
        assembly {
            let owner := and(to, 0xffffffffffffffffffffffffffffffffffffffff)
            for { let head := start } lt(head, end) { head := add(head, OWNERSHIP_MAX_BATCH) } {
                let span := sub(end, head)
                if gt(span, OWNERSHIP_MAX_BATCH) { span := OWNERSHIP_MAX_BATCH }
                sstore(add(base, head), or(owner, shl(OWNERSHIP_SPAN_SHIFT, span)))
            }
            for { let id := start } lt(id, end) { id := add(id, 1) } {
                log4(0, 0, TRANSFER_SIG, 0, owner, id)
            }
        }
    }
}
