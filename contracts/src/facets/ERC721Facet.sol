// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC721Receiver} from "@openzeppelin/contracts/token/ERC721/IERC721Receiver.sol";
import {IERC721Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";
import {
    LibCore,
    LibERC721Storage,
    OWNERSHIP_SPAN_SHIFT as SPAN_SHIFT,
    OWNERSHIP_SPAN_MASK as SPAN_MASK,
    OWNERSHIP_FIRST_MOVED as FIRST_MOVED,
    OWNERSHIP_HAS_APPROVAL as HAS_APPROVAL,
    OWNERSHIP_FIRST_OWNER_OFFSET as FIRST_OWNER_OFFSET,
    OWNERSHIP_MAX_BATCH as MAX_BATCH
} from "../libraries/LibStorage.sol";
import {LibProxy} from "../libraries/LibProxy.sol";
import {IERC4906Events} from "../interfaces/IEvents.sol";
import {IAtelierErrors} from "../libraries/Errors.sol";

/// @title ERC-721 and its metadata extension for a collection.
/// @notice Ownership is stored in runs: a mint writes one run head per run of at most MAX_BATCH (10)
/// consecutive tokens; a token without a word of its own belongs to the owner of the run head
/// below it (at most MAX_BATCH - 1 words away). A transfer never splits a run: it writes the
/// token's own word (explicit owner), or, for a run head, moves the head token's owner to its
/// first-owner word. Layout: LibERC721Storage. Token ids start at 1.
contract ERC721Facet is IERC721Errors, IERC4906Events, IAtelierErrors {
    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId);
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);

    bytes32 private constant TRANSFER_SIG = 0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef;
    uint256 private constant BASE = uint256(LibERC721Storage.OWNERSHIPS);
    uint256 private constant ADDRESS_MASK = 0x00ffffffffffffffffffffffffffffffffffffffff;
    /// kinds of _locate
    uint256 private constant OWN = 0;
    uint256 private constant RUN_HEAD = 1;
    uint256 private constant IN_RUN = 2;

    // ------------------------------------------------------------------ views

    function balanceOf(address owner) external view returns (uint256) {
        if (owner == address(0)) revert ERC721InvalidOwner(address(0));
        return LibERC721Storage.layout_().balances[owner];
    }

    function ownerOf(uint256 tokenId) external view returns (address) {
        (, uint256 word,) = _locate(tokenId);
        return address(uint160(word));
    }

    function getApproved(uint256 tokenId) external view returns (address) {
        _locate(tokenId);
        return LibERC721Storage.layout_().tokenApprovals[tokenId];
    }

    function isApprovedForAll(address owner, address operator) external view returns (bool) {
        return LibERC721Storage.layout_().operatorApprovals[owner][operator];
    }

    function name() external view returns (string memory) {
        return LibProxy.name();
    }

    function symbol() external view returns (string memory) {
        return LibProxy.symbol();
    }

    /// @notice baseURI + decimal tokenId ("" when the base URI is empty).
    function tokenURI(uint256 tokenId) external view returns (string memory) {
        _locate(tokenId);
        string memory base = _baseURI();
        if (bytes(base).length == 0) return "";
        return string.concat(base, Strings.toString(tokenId));
    }

    // ------------------------------------------------------------------ owner

    /// @notice Owner only. Emits ERC-4906 BatchMetadataUpdate(1, type(uint256).max).
    function setBaseURI(string calldata baseURI) external {
        LibCore.enforceOwner();
        if (LibCore.ownerWord() & LibCore.METADATA_FROZEN != 0) revert MetadataIsFrozen();
        LibCore.enforceURILength("baseURI", bytes(baseURI).length);
        LibERC721Storage.layout_().baseURI = baseURI;
        LibCore.setOwnerWord(LibCore.ownerWord() | LibCore.BASE_URI_SET);
        emit BatchMetadataUpdate(1, type(uint256).max);
    }

    // ------------------------------------------------------------------ approvals

    function approve(address to, uint256 tokenId) external {
        (uint256 slot, uint256 word,) = _locate(tokenId);
        address owner = address(uint160(word));
        if (msg.sender != owner && !LibERC721Storage.layout_().operatorApprovals[owner][msg.sender]) {
            revert ERC721InvalidApprover(msg.sender);
        }
        LibERC721Storage.layout_().tokenApprovals[tokenId] = to;
        // The word holding the token's owner carries the hasApproval flag (a token inside a run gets
        // an explicit word), so transfers of tokens never approved do not read the approvals slot.
        uint256 flagged = word | HAS_APPROVAL;
        if (flagged != word) _store(slot, flagged);
        emit Approval(owner, to, tokenId);
    }

    function setApprovalForAll(address operator, bool approved) external {
        if (operator == address(0)) revert ERC721InvalidOperator(operator);
        LibERC721Storage.layout_().operatorApprovals[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    // ------------------------------------------------------------------ transfers

    function transferFrom(address from, address to, uint256 tokenId) external {
        _transfer(from, to, tokenId);
    }

    function safeTransferFrom(address from, address to, uint256 tokenId) external {
        _transfer(from, to, tokenId);
        _checkReceiver(from, to, tokenId, "");
    }

    function safeTransferFrom(address from, address to, uint256 tokenId, bytes calldata data) external {
        _transfer(from, to, tokenId);
        _checkReceiver(from, to, tokenId, data);
    }

    // ------------------------------------------------------------------ internals

    function _baseURI() private view returns (string memory) {
        if (LibCore.ownerWord() & LibCore.BASE_URI_SET != 0) return LibERC721Storage.layout_().baseURI;
        (string memory base,) = LibProxy.initialURIs();
        return base;
    }

    function _store(uint256 slot, uint256 v) private {
        assembly {
            sstore(slot, v)
        }
    }

    /// Where the owner of tokenId is stored, and what that word holds:
    ///   OWN       `slot` holds this token's owner alone (explicit word, head of a one-token run, or
    ///             the first-owner word of a head that left its run);
    ///   RUN_HEAD  the token heads a run of 2+ tokens whose head word (`slot`) it shares with them;
    ///   IN_RUN    the token has no word of its own: `word` is the run owner (flags stripped) and
    ///             `slot` the token's own, empty, ownership slot (read by the scan, so warm).
    function _locate(uint256 tokenId) private view returns (uint256 slot, uint256 word, uint256 kind) {
        uint256 next = (LibCore.mintWord() >> LibCore.NEXT_SHIFT) & LibCore.MASK40;
        if (tokenId == 0 || tokenId >= next) revert ERC721NonexistentToken(tokenId);
        uint256 base = BASE;
        bool found;
        assembly {
            slot := add(base, tokenId)
            word := sload(slot)
            switch word
            case 0 {
                // bounded scan down to the run head: a run holds at most MAX_BATCH tokens
                kind := IN_RUN
                let lowest := 0
                if gt(tokenId, MAX_BATCH) { lowest := sub(tokenId, MAX_BATCH) }
                for { let h := sub(tokenId, 1) } gt(h, lowest) { h := sub(h, 1) } {
                    let r := sload(add(base, h))
                    let span := and(shr(SPAN_SHIFT, r), SPAN_MASK)
                    if span {
                        // the head's run must reach tokenId (always true for a minted token)
                        if lt(sub(tokenId, h), span) {
                            word := and(r, ADDRESS_MASK)
                            found := 1
                        }
                        break
                    }
                }
            }
            default {
                found := 1
                let span := and(shr(SPAN_SHIFT, word), SPAN_MASK)
                if gt(span, 1) {
                    kind := RUN_HEAD
                    if and(word, FIRST_MOVED) {
                        kind := OWN
                        slot := add(slot, FIRST_OWNER_OFFSET)
                        word := sload(slot)
                    }
                }
            }
        }
        if (!found) revert ERC721NonexistentToken(tokenId);
    }

    function _transfer(address from, address to, uint256 tokenId) private {
        (uint256 slot, uint256 word, uint256 kind) = _locate(tokenId);
        address owner = address(uint160(word));
        if (owner != from) revert ERC721IncorrectOwner(from, tokenId, owner);
        if (to == address(0)) revert ERC721InvalidReceiver(address(0));
        LibERC721Storage.Layout storage l = LibERC721Storage.layout_();
        bool approvalFlag = (word & HAS_APPROVAL) != 0; // never set for IN_RUN
        if (msg.sender != from && !l.operatorApprovals[from][msg.sender]) {
            if (!approvalFlag || l.tokenApprovals[tokenId] != msg.sender) {
                revert ERC721InsufficientApproval(msg.sender, tokenId);
            }
        }
        if (approvalFlag) delete l.tokenApprovals[tokenId];
        unchecked {
            l.balances[from] -= 1;
            l.balances[to] += 1;
        }
        if (kind == RUN_HEAD) {
            // the rest of the run keeps the head word; the head token's owner moves out of it
            _store(slot + FIRST_OWNER_OFFSET, uint256(uint160(to)));
            _store(slot, (word | FIRST_MOVED) & ~HAS_APPROVAL);
        } else {
            // OWN keeps its span (1 for a one-token run head, else 0); IN_RUN becomes an explicit word
            _store(slot, uint256(uint160(to)) | (word & (SPAN_MASK << SPAN_SHIFT)));
        }
        assembly {
            log4(0, 0, TRANSFER_SIG, and(from, 0xffffffffffffffffffffffffffffffffffffffff), and(to, 0xffffffffffffffffffffffffffffffffffffffff), tokenId)
        }
    }

    function _checkReceiver(address from, address to, uint256 tokenId, bytes memory data) private {
        if (to.code.length == 0) return;
        try IERC721Receiver(to).onERC721Received(msg.sender, from, tokenId, data) returns (bytes4 retval) {
            if (retval != IERC721Receiver.onERC721Received.selector) revert ERC721InvalidReceiver(to);
        } catch (bytes memory reason) {
            if (reason.length == 0) revert ERC721InvalidReceiver(to);
            assembly {
                revert(add(reason, 32), mload(reason))
            }
        }
    }
}
