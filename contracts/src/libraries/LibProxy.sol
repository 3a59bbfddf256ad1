// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {CollectionParams} from "../interfaces/ICollectionTypes.sol";
import {LibCore} from "./LibStorage.sol";

/// @title The per-collection proxy: its runtime code, its creation code and the data appended to it.
/// @notice A collection is a 183-byte hand-written proxy followed by its immutable data.
///
/// Runtime logic (pc: bytes  meaning):
///   00: 36 5f 5f 37            calldatacopy(0, 0, calldatasize())
///   04: 5f 35 60e0 1c          sig := calldataload(0) >> 224
///   09: 7f <Core slot> 54      w := sload(Core slot)          (the mint word; cold 2100, warm later)
///   2b: 60ff 1c 6059 57        if (w >> 255) goto ROUTER       (collection has diamondCut overrides)
///   31: 80 63 23b872dd 14 6072 57   if sig == transferFrom                 goto ERC721
///   3b: 80 63 42842e0e 14 6072 57   if sig == safeTransferFrom(a,a,u)      goto ERC721
///   45: 80 63 b88d4fde 14 6072 57   if sig == safeTransferFrom(a,a,u,b)    goto ERC721
///   4f: 80 63 449a52f8 14 608b 57   if sig == mintTo(address,uint256)     goto MINT
///   59: 5b 73 <router>  60a1 56      ROUTER: target := router; goto CALL
///   72: 5b 73 <erc721Facet> 60a1 56  ERC721: target := ERC721Facet; goto CALL
///   8b: 5b 73 <mintFacet>            MINT:   target := MintFacet
///   a1: 5b 5f5f 36 5f 84 5a f4       CALL: delegatecall(gas(), target, 0, calldatasize(), 0, 0)
///   a9: 3d 5f 5f 3e                  returndatacopy(0, 0, returndatasize())
///   ad: 60b3 57 3d 5f fd             if failed revert(0, returndatasize())
///   b3: 5b 3d 5f f3                  return(0, returndatasize())
///   b7: data...
/// The four fast-path selectors are exactly the shared table's entries for them (the router agrees),
/// so the proxy only skips a hop; a collection with any override always goes through the router,
/// which consults the overrides first.
library LibProxy {
    uint256 internal constant LOGIC_LEN = 0xb7;
    uint256 internal constant ROUTER_OFFSET = 0x5b;
    uint256 internal constant ERC721_OFFSET = 0x74;
    uint256 internal constant MINT_OFFSET = 0x8d;

    /// Creation code: delegatecall CollectionInit (which writes the initial storage, emits the
    /// creation events and returns the runtime code), then deploy what it returned.
    ///   3d3d3d3d 73<init> 5a f4      delegatecall(gas(), init, 0, 0, 0, 0)
    ///   3d 5f 5f 3e                  returndatacopy(0, 0, returndatasize())
    ///   6025 57 3d 5f fd             if failed revert(0, returndatasize())
    ///   5b 3d 5f f3                  return(0, returndatasize())
    function creationCode(address collectionInit) internal pure returns (bytes memory) {
        return abi.encodePacked(hex"3d3d3d3d73", collectionInit, hex"5af43d5f5f3e6025573d5ffd5b3d5ff3");
    }

    function runtimeCode(address routerAddr, address erc721Facet, address mintFacet, bytes memory tail)
        internal
        pure
        returns (bytes memory)
    {
        return abi.encodePacked(
            abi.encodePacked(hex"365f5f375f3560e01c7f", LibCore.SLOT, hex"5460ff1c605957"),
            hex"806323b872dd146072578063" hex"42842e0e146072578063" hex"b88d4fde146072578063" hex"449a52f814608b57",
            hex"5b73",
            routerAddr,
            hex"60a1565b73",
            erc721Facet,
            hex"60a1565b73",
            mintFacet,
            hex"5b5f5f365f845af43d5f5f3e60b3573d5ffd5b3d5ff3",
            tail
        );
    }

    // ----------------------------------------------------------------------------------------
    // Immutable data appended to the runtime code
    //   address royaltyReceiver (20 bytes), u8 nameLength, name, u8 symbolLength, symbol, u8 uriMode, then
    //   uriMode 1 (platform pattern): u16 prefixLength, prefix
    //       baseURI = prefix + "tokens/", contractURI = prefix + "metadata.json"
    //   uriMode 0 (anything else):    u16 length, baseURI, u16 length, contractURI
    // ----------------------------------------------------------------------------------------

    /// "tokens/" and "metadata.json" as big-endian integers
    uint256 private constant TOKENS_SUFFIX = 0x746f6b656e732f;
    uint256 private constant METADATA_SUFFIX = 0x6d657461646174612e6a736f6e;

    function encodeData(CollectionParams memory p) internal pure returns (bytes memory) {
        bytes memory b = bytes(p.baseURI);
        bytes memory c = bytes(p.contractURI);
        if (b.length >= 7 && c.length >= 13 && b.length - 7 == c.length - 13) {
            uint256 n = b.length - 7;
            bool pattern;
            assembly {
                let tailB := mload(add(add(b, 32), n))
                let tailC := mload(add(add(c, 32), n))
                pattern := and(
                    and(
                        eq(shr(200, tailB), TOKENS_SUFFIX),
                        eq(shr(152, tailC), METADATA_SUFFIX)
                    ),
                    eq(keccak256(add(b, 32), n), keccak256(add(c, 32), n))
                )
            }
            if (pattern) {
                bytes memory prefix = new bytes(n);
                assembly {
                    mcopy(add(prefix, 32), add(b, 32), n)
                }
                return abi.encodePacked(
                    p.royaltyReceiver, uint8(bytes(p.name).length), p.name, uint8(bytes(p.symbol).length), p.symbol, uint8(1), uint16(n), prefix
                );
            }
        }
        return abi.encodePacked(
            p.royaltyReceiver,
            uint8(bytes(p.name).length),
            p.name,
            uint8(bytes(p.symbol).length),
            p.symbol,
            uint8(0),
            uint16(b.length),
            b,
            uint16(c.length),
            c
        );
    }

    /// The data appended to this collection's code (runs in the collection's context).
    function data() internal view returns (bytes memory d) {
        uint256 size;
        assembly {
            size := extcodesize(address())
        }
        if (size <= LOGIC_LEN) return d;
        uint256 n = size - LOGIC_LEN;
        d = new bytes(n);
        assembly {
            extcodecopy(address(), add(d, 32), LOGIC_LEN, n)
        }
    }

    function router() internal view returns (address r) {
        return _addressAt(ROUTER_OFFSET);
    }

    function _addressAt(uint256 offset) private view returns (address a) {
        assembly {
            mstore(0, 0)
            extcodecopy(address(), 12, offset, 20)
            a := mload(0)
        }
    }

    function _slice(bytes memory d, uint256 start, uint256 len) private pure returns (bytes memory out) {
        out = new bytes(len);
        assembly {
            mcopy(add(out, 32), add(add(d, 32), start), len)
        }
    }

    function _u8(bytes memory d, uint256 i) private pure returns (uint256) {
        return uint8(d[i]);
    }

    function _u16(bytes memory d, uint256 i) private pure returns (uint256) {
        return (uint256(uint8(d[i])) << 8) | uint8(d[i + 1]);
    }

    uint256 private constant NAME_AT = 20;

    function initialRoyaltyReceiver() internal view returns (address r) {
        return _addressAt(LOGIC_LEN);
    }

    function name() internal view returns (string memory) {
        bytes memory d = data();
        if (d.length == 0) return "";
        return string(_slice(d, NAME_AT + 1, _u8(d, NAME_AT)));
    }

    function symbol() internal view returns (string memory) {
        bytes memory d = data();
        if (d.length == 0) return "";
        uint256 pos = NAME_AT + 1 + _u8(d, NAME_AT);
        return string(_slice(d, pos + 1, _u8(d, pos)));
    }

    /// (baseURI, contractURI) as given at creation.
    function initialURIs() internal view returns (string memory baseURI, string memory contractURI) {
        bytes memory d = data();
        if (d.length == 0) return ("", "");
        uint256 pos = NAME_AT + 1 + _u8(d, NAME_AT);
        pos += 1 + _u8(d, pos);
        uint256 mode = _u8(d, pos);
        pos += 1;
        if (mode == 1) {
            bytes memory prefix = _slice(d, pos + 2, _u16(d, pos));
            return (string.concat(string(prefix), "tokens/"), string.concat(string(prefix), "metadata.json"));
        }
        uint256 bl = _u16(d, pos);
        baseURI = string(_slice(d, pos + 2, bl));
        pos += 2 + bl;
        contractURI = string(_slice(d, pos + 2, _u16(d, pos)));
    }
}
