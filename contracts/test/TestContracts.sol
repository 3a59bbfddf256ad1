// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC721Receiver} from "@openzeppelin/contracts/token/ERC721/IERC721Receiver.sol";

/// Test only: accepts ERC-721 tokens and records the last callback.
contract TestERC721Receiver is IERC721Receiver {
    event Received(address operator, address from, uint256 tokenId, bytes data);

    uint256 public received;

    function onERC721Received(address operator, address from, uint256 tokenId, bytes calldata data)
        external
        returns (bytes4)
    {
        received += 1;
        emit Received(operator, from, tokenId, data);
        return IERC721Receiver.onERC721Received.selector;
    }
}

/// Test only: refuses ERC-721 tokens (mode 0: revert with a reason, 1: wrong return value, 2: empty revert).
contract TestRejectingReceiver {
    uint256 public immutable mode;

    constructor(uint256 mode_) {
        mode = mode_;
    }

    function onERC721Received(address, address, uint256, bytes calldata) external view returns (bytes4) {
        if (mode == 0) revert("TestRejectingReceiver: no thanks");
        if (mode == 1) return bytes4(0xdeadbeef);
        revert();
    }
}

/// Test only: a contract with no onERC721Received at all.
contract TestNonReceiver {
    uint256 public x;
}

/// Test only: a facet an owner cuts into one collection (replaces symbol and transferFrom, adds hello).
contract TestOverrideFacet {
    error TransfersFrozen();

    function symbol() external pure returns (string memory) {
        return "OVR";
    }

    function transferFrom(address, address, uint256) external pure {
        revert TransfersFrozen();
    }

    function hello() external view returns (address) {
        return address(this);
    }
}

/// Test only: a diamondCut init that marks an interface as supported for the collection.
contract TestCutInit {
    /// erc7201:atelier.storage.Diamond; interfaceOverride is the 4th field (slot + 3)
    bytes32 private constant DIAMOND_SLOT = 0x01e684c0b110fbcca341ff8043044c2d9d56d7b380034480d5059ecbbaa36500;

    function init(bytes4 interfaceId) external {
        bytes32 slot = keccak256(abi.encode(interfaceId, uint256(DIAMOND_SLOT) + 3));
        assembly {
            sstore(slot, 1)
        }
    }

    function fail() external pure {
        revert("TestCutInit: failed");
    }
}
