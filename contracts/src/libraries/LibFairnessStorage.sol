// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title Storage of FairnessFacet (ERC-7201 namespace; slot checked by test/contracts/diamond.test.ts).
library LibFairnessStorage {
    /// @custom:storage-location erc7201:atelier.storage.Fairness
    struct Layout {
        bytes32 commitment;
        bytes32 secret;
        bool revealed;
        /// keccak256 of the canonical JSON of an exact collection's ordered deck (appended field).
        bytes32 provenance;
    }

    bytes32 internal constant SLOT = 0xf322716edba0052aaa752d9351f04a8fc7a707744d12eee10aff53d7f2ac7400;

    function layout_() internal pure returns (Layout storage l) {
        assembly {
            l.slot := SLOT
        }
    }
}
