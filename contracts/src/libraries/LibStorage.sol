// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IAtelierErrors} from "./Errors.sol";

// Layout of the ownership words of atelier.storage.ERC721.ownerships (see LibERC721Storage).
uint256 constant OWNERSHIP_SPAN_SHIFT = 160;
uint256 constant OWNERSHIP_SPAN_MASK = 0xffff;
// bit 176: a run head whose head token left the run (its owner is in the first-owner word)
uint256 constant OWNERSHIP_FIRST_MOVED = 0x100000000000000000000000000000000000000000000;
// bit 177: tokenApprovals[tokenId] may be set
uint256 constant OWNERSHIP_HAS_APPROVAL = 0x200000000000000000000000000000000000000000000;
// First-owner words (owner of a run head after it left its run, plus HAS_APPROVAL) live at
// OWNERSHIPS + 2^40 + tokenId, past every ownership word (token ids < 2^40).
uint256 constant OWNERSHIP_FIRST_OWNER_OFFSET = 0x10000000000;
// A mint writes one run head per run of at most MAX_BATCH tokens, so finding the owner of any
// token reads at most MAX_BATCH ownership words (the scan is bounded).
uint256 constant OWNERSHIP_MAX_BATCH = 10;

/// @title Namespaced storage of a collection (ERC-7201).
/// @notice Every facet reads and writes collection state only through these namespaces, so no two
/// facets (ours or an owner's override facet) can collide on a slot. The namespace ids and their
/// slots (erc7201 formula: keccak256(abi.encode(uint256(keccak256(id)) - 1)) & ~bytes32(uint256(0xff)))
/// are checked by test/contracts/diamond.test.ts.
library LibCore {
    /// @custom:storage-location erc7201:atelier.storage.Core
    /// word 0 ("mint word", read by every proxy call for the override flag):
    ///   bits   0..159  minter
    ///   bits 160..199  next token id (token ids start at 1; totalSupply = next - 1)
    ///   bits 200..239  maxSupply
    ///   bit  240       mintActive
    ///   bit  255       hasOverrides (some selector of this collection is overridden by diamondCut)
    /// word 1 ("owner word"):
    ///   bits   0..159  owner (ERC-173)
    ///   bits 160..175  royalty fee in basis points (ERC-2981)
    ///   bit  176       baseURI was set by setBaseURI (else the creation value in the proxy code)
    ///   bit  177       contractURI was set by setContractURI (else the creation value)
    ///   bit  178       royalty receiver was set by setDefaultRoyalty (else the creation value in the code)
    ///   bit  179       upgrades frozen (freezeUpgrades): diamondCut is gone for good
    ///   bit  180       metadata frozen (freezeMetadata): baseURI and contractURI can never change
    bytes32 internal constant SLOT = 0xa7b176edf3a70942502572a234c16ed64889530632318bb3bd799d443b486300;

    uint256 internal constant ADDRESS_MASK = (1 << 160) - 1;
    uint256 internal constant MASK40 = (1 << 40) - 1;
    /// Bytes of one URI. The creation URIs live in the collection's code, which EIP-170 caps at
    /// 24,576 bytes: 210 bytes of proxy and header, name and symbol (<= 255 each) and both URIs, so
    /// two URIs of (24,576 - 210 - 255 - 255) / 2 bytes always fit (docs/contracts.md "URI limits").
    uint256 internal constant MAX_URI_BYTES = 11_928;
    uint256 internal constant NEXT_SHIFT = 160;
    uint256 internal constant MAX_SHIFT = 200;
    uint256 internal constant MINT_ACTIVE = 1 << 240;
    uint256 internal constant HAS_OVERRIDES = 1 << 255;
    uint256 internal constant ROYALTY_SHIFT = 160;
    uint256 internal constant BASE_URI_SET = 1 << 176;
    uint256 internal constant CONTRACT_URI_SET = 1 << 177;
    uint256 internal constant ROYALTY_RECEIVER_SET = 1 << 178;
    uint256 internal constant UPGRADES_FROZEN = 1 << 179;
    uint256 internal constant METADATA_FROZEN = 1 << 180;

    function mintWord() internal view returns (uint256 w) {
        assembly {
            w := sload(SLOT)
        }
    }

    function setMintWord(uint256 w) internal {
        assembly {
            sstore(SLOT, w)
        }
    }

    function ownerWord() internal view returns (uint256 w) {
        assembly {
            w := sload(add(SLOT, 1))
        }
    }

    function setOwnerWord(uint256 w) internal {
        assembly {
            sstore(add(SLOT, 1), w)
        }
    }

    function owner() internal view returns (address) {
        return address(uint160(ownerWord()));
    }

    function minter() internal view returns (address) {
        return address(uint160(mintWord()));
    }

    function nextTokenId() internal view returns (uint256) {
        return (mintWord() >> NEXT_SHIFT) & MASK40;
    }

    /// Reverts URITooLong when `uri` is longer than MAX_URI_BYTES.
    function enforceURILength(string memory field, uint256 length) internal pure {
        if (length > MAX_URI_BYTES) revert IAtelierErrors.URITooLong(field, length, MAX_URI_BYTES);
    }

    function enforceOwner() internal view {
        if (msg.sender != owner()) revert IAtelierErrors.NotOwner(msg.sender);
    }

    function enforceOwnerOrMinter() internal view {
        if (msg.sender != minter() && msg.sender != owner()) revert IAtelierErrors.NotOwnerOrMinter(msg.sender);
    }
}

library LibERC721Storage {
    /// @custom:storage-location erc7201:atelier.storage.ERC721
    struct Layout {
        mapping(address => uint256) balances;
        mapping(uint256 => address) tokenApprovals;
        mapping(address => mapping(address => bool)) operatorApprovals;
        string baseURI;
    }

    bytes32 internal constant SLOT = 0xc65aad0dc38ef6ff60e3d5dbcd49887f97e214efbc364665a1c0fb58c65aa900;

    /// @custom:storage-location erc7201:atelier.storage.ERC721.ownerships
    /// Ownership words live at OWNERSHIPS + tokenId (like an array; token ids < 2^40). A word is
    ///   zero               the token has no word of its own: its owner is the owner of its run head,
    ///                      the nearest word below it with a non-zero span (at most MAX_BATCH - 1 below);
    ///   span == 0          an explicit owner of this token alone (written by a transfer or approve of
    ///                      a token inside a run; never a run head, so it never changes another token);
    ///   span >= 1          a run head, written by mintTo: owner of the tokens tokenId .. tokenId+span-1
    ///                      that have no word of their own (and of tokenId itself unless FIRST_MOVED).
    ///   bits   0..159  owner
    ///   bits 160..175  span (see above)
    ///   bit  176       FIRST_MOVED (run heads only): the head token itself was transferred; its owner is
    ///                  the first-owner word at OWNERSHIPS + FIRST_OWNER_OFFSET + tokenId
    ///   bit  177       HAS_APPROVAL: tokenApprovals[tokenId] may be set (kept in the word that holds
    ///                  this token's owner; a run head's flag is about the head token only)
    /// Runs are only created by mintTo and never split, so a transfer writes one word for the token
    /// (and sets FIRST_MOVED once when a run head leaves its run): no zero-to-non-zero write for
    /// the other tokens of the run.
    bytes32 internal constant OWNERSHIPS = 0x155c6401baa9359616908c689a74584618913e7e3f5540593235b60c2033da00;

    /// Field positions and MAX_BATCH: the file-level OWNERSHIP_* constants at the top of this file
    /// (number literals, so inline assembly can use them).

    function layout_() internal pure returns (Layout storage l) {
        assembly {
            l.slot := SLOT
        }
    }
}

library LibDiamondStorage {
    /// @custom:storage-location erc7201:atelier.storage.Diamond
    /// Per-collection overrides of the shared facet table, written by diamondCut.
    struct Layout {
        /// selector => facet; REMOVED marks a default selector removed for this collection.
        mapping(bytes4 => address) facetOf;
        /// every selector with an entry in facetOf (for the loupe)
        bytes4[] selectors;
        /// 1-based position in selectors
        mapping(bytes4 => uint256) position;
        /// ERC-165 answers changed for this collection: 1 = supported, 2 = not supported.
        mapping(bytes4 => uint8) interfaceOverride;
    }

    bytes32 internal constant SLOT = 0x01e684c0b110fbcca341ff8043044c2d9d56d7b380034480d5059ecbbaa36500;

    /// Marker of a removed selector (address(1) has no code, so no cut can add it as a facet).
    address internal constant REMOVED = address(1);

    function layout_() internal pure returns (Layout storage l) {
        assembly {
            l.slot := SLOT
        }
    }
}

library LibRoyaltyStorage {
    /// @custom:storage-location erc7201:atelier.storage.Royalty
    /// one word: the royalty receiver once setDefaultRoyalty was called (the fee is in the owner word)
    bytes32 internal constant SLOT = 0x307d80f56e49a18a34c3b3a852f5e135e7bd6f3e68776ce408d3ce17cc71b400;

    function word() internal view returns (uint256 w) {
        assembly {
            w := sload(SLOT)
        }
    }

    function setWord(uint256 w) internal {
        assembly {
            sstore(SLOT, w)
        }
    }
}

library LibContractURIStorage {
    /// @custom:storage-location erc7201:atelier.storage.ContractURI
    struct Layout {
        string contractURI;
    }

    bytes32 internal constant SLOT = 0x22a4387c2fb1371591b5820c61a53464000bbf1dc6bc2438ef7fbe49d8125d00;

    function layout_() internal pure returns (Layout storage l) {
        assembly {
            l.slot := SLOT
        }
    }
}
