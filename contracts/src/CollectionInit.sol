// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IDiamond, IERC173} from "./interfaces/IDiamond.sol";
import {CollectionParams, ICollectionFactoryCallback} from "./interfaces/ICollectionTypes.sol";
import {LibCore} from "./libraries/LibStorage.sol";
import {LibProxy} from "./libraries/LibProxy.sol";

/// @title Initialisation of a new collection, delegatecalled by the collection's creation code.
/// @notice Runs in the new collection's context while the factory creates it: asks the factory for
/// the pending parameters, writes the initial storage (2 words: the mint word and the owner word),
/// emits OwnershipTransferred(0, owner) and the ERC-2535 DiamondCut event describing the shared
/// facet table (pre-encoded once per factory), and returns the collection's runtime code (the proxy
/// followed by its immutable data: name, symbol and the creation URIs).
contract CollectionInit {
    error OnlyDelegateCall();

    address private immutable SELF;
    bytes32 private constant DIAMOND_CUT_SIG = IDiamond.DiamondCut.selector;
    bytes32 private constant OWNERSHIP_SIG = IERC173.OwnershipTransferred.selector;

    constructor() {
        SELF = address(this);
    }

    fallback() external {
        if (address(this) == SELF) revert OnlyDelegateCall();
        (CollectionParams memory p, address router, address erc721Facet, address mintFacet, address cutData) =
            ICollectionFactoryCallback(msg.sender).pendingCollection();
        LibCore.setMintWord(
            uint256(uint160(p.minter)) | (1 << LibCore.NEXT_SHIFT) | (p.maxSupply << LibCore.MAX_SHIFT)
                | LibCore.MINT_ACTIVE
        );
        LibCore.setOwnerWord(uint256(uint160(p.owner)) | (uint256(p.royaltyBps) << LibCore.ROYALTY_SHIFT));
        address owner = p.owner;
        bytes32 ownershipSig = OWNERSHIP_SIG;
        bytes32 cutSig = DIAMOND_CUT_SIG;
        assembly {
            log3(0, 0, ownershipSig, 0, owner)
            // DiamondCut(FacetCut[] cuts, address(0), "") with every default facet as Add,
            // copied from the factory's data contract (its code is 0x00 ++ abi-encoded event data).
            let size := sub(extcodesize(cutData), 1)
            let ptr := mload(0x40)
            extcodecopy(cutData, ptr, 1, size)
            log1(ptr, size, cutSig)
        }
        bytes memory code = LibProxy.runtimeCode(router, erc721Facet, mintFacet, LibProxy.encodeData(p));
        assembly {
            return(add(code, 32), mload(code))
        }
    }
}
