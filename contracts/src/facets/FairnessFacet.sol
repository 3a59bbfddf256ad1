// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {LibCore} from "../libraries/LibStorage.sol";
import {LibFairnessStorage} from "../libraries/LibFairnessStorage.sol";

/// @title Seed commitment and reveal of a collection (docs/fairness.md).
/// @notice The platform draws a 32-byte secret per collection and commits keccak256(secret) here
/// before any public mint; every token's seed is keccak256(abi.encodePacked(secret, chainId,
/// collection, tokenId, blockhash of the block that mined the token)). Publishing the secret with
/// reveal() lets anyone recompute every seed. Both are settable once; owner or minter only.
contract FairnessFacet {
    event SeedCommitted(bytes32 commitment);
    event SeedRevealed(bytes32 secret);
    event ProvenanceSet(bytes32 provenanceHash);

    error SeedAlreadyCommitted();
    error SeedNotCommitted();
    error SeedAlreadyRevealed();
    error WrongSeedSecret();
    error ZeroCommitment();
    error ProvenanceAlreadySet();
    error ProvenanceAfterMint();

    /// @notice Owner or minter, once. commitment = keccak256(abi.encodePacked(secret)).
    function commitSeed(bytes32 commitment) external {
        LibCore.enforceOwnerOrMinter();
        LibFairnessStorage.Layout storage l = LibFairnessStorage.layout_();
        if (commitment == bytes32(0)) revert ZeroCommitment();
        if (l.commitment != bytes32(0)) revert SeedAlreadyCommitted();
        l.commitment = commitment;
        emit SeedCommitted(commitment);
    }

    /// @notice Owner or minter, once, after commitSeed: publishes the secret behind the commitment.
    function reveal(bytes32 secret) external {
        LibCore.enforceOwnerOrMinter();
        LibFairnessStorage.Layout storage l = LibFairnessStorage.layout_();
        if (l.commitment == bytes32(0)) revert SeedNotCommitted();
        if (l.revealed) revert SeedAlreadyRevealed();
        if (keccak256(abi.encodePacked(secret)) != l.commitment) revert WrongSeedSecret();
        l.secret = secret;
        l.revealed = true;
        emit SeedRevealed(secret);
    }

    /// @notice Owner or minter, once, before the first token: the provenance hash of an exact
    /// collection's deck (docs/fairness.md "Exact counts"), so the deck cannot change after a sale starts.
    function setProvenance(bytes32 provenanceHash_) external {
        LibCore.enforceOwnerOrMinter();
        LibFairnessStorage.Layout storage l = LibFairnessStorage.layout_();
        if (provenanceHash_ == bytes32(0)) revert ZeroCommitment();
        if (l.provenance != bytes32(0)) revert ProvenanceAlreadySet();
        if (LibCore.nextTokenId() > 1) revert ProvenanceAfterMint();
        l.provenance = provenanceHash_;
        emit ProvenanceSet(provenanceHash_);
    }

    /// @notice The deck's provenance hash; zero when none was set (a weighted collection).
    function provenanceHash() external view returns (bytes32) {
        return LibFairnessStorage.layout_().provenance;
    }

    /// @notice keccak256 of the secret; zero before commitSeed.
    function seedCommitment() external view returns (bytes32) {
        return LibFairnessStorage.layout_().commitment;
    }

    /// @notice (true, secret) once revealed; (false, 0) before.
    function revealedSeed() external view returns (bool revealed, bytes32 secret) {
        LibFairnessStorage.Layout storage l = LibFairnessStorage.layout_();
        return (l.revealed, l.secret);
    }
}
