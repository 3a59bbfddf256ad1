// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IDiamond} from "./interfaces/IDiamond.sol";
import {CollectionParams, ICollectionFactoryCallback} from "./interfaces/ICollectionTypes.sol";
import {LibCore} from "./libraries/LibStorage.sol";
import {LibProxy} from "./libraries/LibProxy.sol";
import {DiamondRouter} from "./DiamondRouter.sol";

/// @title Creates collections: ERC-2535 diamonds that share one facet table.
/// @notice Each collection is a small proxy created with CREATE2 from a creation code that is the
/// same for every collection of this factory, so its address depends only on the salt:
/// salt = keccak256(abi.encode(creator, collectionCount at creation)).
contract DiamondFactory is ICollectionFactoryCallback {
    event CollectionCreated(address indexed diamond, string name, string symbol, address indexed owner);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    error InvalidCollectionParams(string field);
    error NotFactoryOwner(address account);
    error NoPendingCollection();

    address public immutable diamondCutFacet;
    address public immutable diamondLoupeFacet;
    address public immutable ownershipFacet;
    address public immutable erc721Facet;
    address public immutable mintFacet;
    address public immutable contractURIFacet;
    address public immutable metadataUpdateFacet;
    address public immutable royaltyFacet;
    address public immutable fairnessFacet;
    address public immutable saleFacet;
    address public immutable collectionInit;
    /// The shared default facet table (DiamondRouter) every collection delegates to.
    address public immutable router;
    /// Data contract holding the ABI-encoded DiamondCut event emitted by every new collection.
    address public immutable defaultCutData;
    /// keccak256 of the collection creation code (for CREATE2 address prediction off chain).
    bytes32 public immutable collectionInitCodeHash;

    /// packed in one slot so that creating the first collection updates a non-zero slot
    address public owner;
    uint96 public collectionCount;

    /// transient: length, then the words of the ABI-encoded return data of pendingCollection()
    uint256 private constant PENDING = uint256(keccak256("atelier.factory.pending"));

    constructor(
        address diamondCutFacet_,
        address diamondLoupeFacet_,
        address ownershipFacet_,
        address erc721Facet_,
        address mintFacet_,
        address contractURIFacet_,
        address metadataUpdateFacet_,
        address royaltyFacet_,
        address fairnessFacet_,
        address saleFacet_,
        address collectionInit_
    ) {
        address[10] memory f = [
            diamondCutFacet_,
            diamondLoupeFacet_,
            ownershipFacet_,
            erc721Facet_,
            mintFacet_,
            contractURIFacet_,
            metadataUpdateFacet_,
            royaltyFacet_,
            fairnessFacet_,
            saleFacet_
        ];
        for (uint256 i; i < 10; ++i) {
            if (f[i].code.length == 0) revert InvalidCollectionParams("facet has no code");
        }
        if (collectionInit_.code.length == 0) revert InvalidCollectionParams("collectionInit has no code");
        diamondCutFacet = diamondCutFacet_;
        diamondLoupeFacet = diamondLoupeFacet_;
        ownershipFacet = ownershipFacet_;
        erc721Facet = erc721Facet_;
        mintFacet = mintFacet_;
        contractURIFacet = contractURIFacet_;
        metadataUpdateFacet = metadataUpdateFacet_;
        royaltyFacet = royaltyFacet_;
        fairnessFacet = fairnessFacet_;
        saleFacet = saleFacet_;
        collectionInit = collectionInit_;
        address r = address(new DiamondRouter(f));
        router = r;

        (bool ok, bytes memory table) = r.staticcall("");
        require(ok);
        (address[] memory facets, bytes4[][] memory selectors) = abi.decode(table, (address[], bytes4[][]));
        IDiamond.FacetCut[] memory cuts = new IDiamond.FacetCut[](facets.length);
        for (uint256 i; i < facets.length; ++i) {
            cuts[i] = IDiamond.FacetCut(facets[i], IDiamond.FacetCutAction.Add, selectors[i]);
        }
        bytes memory blob = abi.encode(cuts, address(0), new bytes(0));
        // creation code: copy the 0x00-prefixed blob after the 10-byte header and return it as code
        bytes memory creation = abi.encodePacked(hex"61", uint16(blob.length + 1), hex"80600a5f395ff300", blob);
        address data;
        assembly {
            data := create(0, add(creation, 32), mload(creation))
        }
        require(data != address(0));
        defaultCutData = data;
        collectionInitCodeHash = keccak256(LibProxy.creationCode(collectionInit_));
        owner = msg.sender;
        emit OwnershipTransferred(address(0), msg.sender);
    }

    /// @notice Creates a collection owned by params.owner; returns its address (also in CollectionCreated).
    function createCollection(CollectionParams calldata params) external returns (address diamond) {
        _validate(params);
        uint256 index = collectionCount;
        bytes32 salt = keccak256(abi.encode(msg.sender, index));
        bytes memory code = LibProxy.creationCode(collectionInit);
        uint256 base = PENDING;
        address r = router;
        address e = erc721Facet;
        address m = mintFacet;
        address d = defaultCutData;
        assembly {
            // Keep pendingCollection()'s return data in transient storage: the head
            // (offset of the struct = 0xa0, router, erc721Facet, mintFacet, defaultCutData) followed by
            // the ABI-encoded params copied from calldata (offsets inside a tuple are relative to it).
            let start := add(4, calldataload(4))
            let tail := sub(calldatasize(), start)
            tstore(base, add(0xa0, tail))
            tstore(add(base, 1), 0xa0)
            tstore(add(base, 2), r)
            tstore(add(base, 3), e)
            tstore(add(base, 4), m)
            tstore(add(base, 5), d)
            let words := shr(5, add(tail, 31))
            for { let i := 0 } lt(i, words) { i := add(i, 1) } {
                tstore(add(base, add(6, i)), calldataload(add(start, shl(5, i))))
            }
            diamond := create2(0, add(code, 32), mload(code), salt)
            if iszero(diamond) {
                returndatacopy(0, 0, returndatasize())
                revert(0, returndatasize())
            }
            tstore(base, 0)
        }
        collectionCount = uint96(index + 1);
        emit CollectionCreated(diamond, params.name, params.symbol, params.owner);
    }

    /// @notice Called by a collection under construction (through CollectionInit).
    function pendingCollection()
        external
        view
        returns (CollectionParams memory, address, address, address, address)
    {
        uint256 base = PENDING;
        assembly {
            let len := tload(base)
            if iszero(len) {
                mstore(0, 0x7c5f8a0e00000000000000000000000000000000000000000000000000000000) // NoPendingCollection()
                revert(0, 4)
            }
            let ptr := mload(0x40)
            let words := shr(5, add(len, 31))
            for { let i := 0 } lt(i, words) { i := add(i, 1) } {
                mstore(add(ptr, shl(5, i)), tload(add(base, add(i, 1))))
            }
            return(ptr, len)
        }
    }

    /// @notice CREATE2 salt of the `index`-th collection (index = collectionCount at creation) created by `creator`.
    function collectionSalt(address creator, uint256 index) public pure returns (bytes32) {
        return keccak256(abi.encode(creator, index));
    }

    /// @notice Address of the collection `creator` gets when it calls createCollection while
    /// collectionCount() == index. Usage: predict with (sender, collectionCount()), then create.
    function predictCollectionAddress(address creator, uint256 index) external view returns (address) {
        return address(
            uint160(
                uint256(
                    keccak256(
                        abi.encodePacked(bytes1(0xff), address(this), collectionSalt(creator, index), collectionInitCodeHash)
                    )
                )
            )
        );
    }

    function transferOwnership(address newOwner) external {
        if (msg.sender != owner) revert NotFactoryOwner(msg.sender);
        emit OwnershipTransferred(owner, newOwner);
        owner = newOwner;
    }

    function _validate(CollectionParams calldata p) private pure {
        if (bytes(p.name).length == 0 || bytes(p.name).length > 255) revert InvalidCollectionParams("name");
        if (bytes(p.symbol).length == 0 || bytes(p.symbol).length > 255) revert InvalidCollectionParams("symbol");
        // URIs live in the collection's code (EIP-170: 24,576 bytes at most): LibCore.MAX_URI_BYTES each.
        LibCore.enforceURILength("baseURI", bytes(p.baseURI).length);
        LibCore.enforceURILength("contractURI", bytes(p.contractURI).length);
        if (p.maxSupply > LibCore.MASK40 - 1) revert InvalidCollectionParams("maxSupply");
        if (p.royaltyBps > 10_000 || (p.royaltyReceiver == address(0) && p.royaltyBps != 0)) {
            revert InvalidCollectionParams("royalty");
        }
        if (p.owner == address(0)) revert InvalidCollectionParams("owner");
    }
}
