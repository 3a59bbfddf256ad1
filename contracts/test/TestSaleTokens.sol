// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

interface ISalePurchase {
    function purchase(address to, uint256 quantity, bytes32[] calldata proof, bytes calldata data) external payable;
}

/// Test only: an ERC-20 that burns 1% of every transfer (fee-on-transfer).
contract TestFeeToken is ERC20 {
    constructor() ERC20("Fee Token", "FEE") {}

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    function _update(address from, address to, uint256 value) internal override {
        if (from != address(0) && to != address(0)) {
            uint256 fee = value / 100;
            super._update(from, address(0), fee);
            value -= fee;
        }
        super._update(from, to, value);
    }
}

/// Test only: an ERC-20 whose transferFrom misbehaves. mode 1: reverts; 2: returns false;
/// 3: returns true without moving anything; 4: re-enters purchase on the collection, then transfers.
contract TestBadToken is ERC20 {
    uint256 public mode;
    address public target;

    constructor(uint256 mode_) ERC20("Bad Token", "BAD") {
        mode = mode_;
    }

    function setTarget(address t) external {
        target = t;
    }

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    function transferFrom(address from, address to, uint256 value) public override returns (bool) {
        if (mode == 1) revert("TestBadToken: no");
        if (mode == 2) return false;
        if (mode == 3) return true;
        if (mode == 4) {
            ISalePurchase(target).purchase(address(this), 1, new bytes32[](0), "");
        }
        return super.transferFrom(from, to, value);
    }
}

/// Test only: a payout recipient (or buyer) that tries to buy again when it receives native currency.
/// mode 0: re-enter purchase and swallow the failure (the re-entry must not mint); 1: re-enter and
/// bubble the failure up; 2: refuse the payment.
contract TestReentrantReceiver {
    address public target;
    uint256 public mode;
    uint256 public attempts;
    bool public reentered;

    constructor(address target_, uint256 mode_) {
        target = target_;
        mode = mode_;
    }

    /// Buys from this contract (so a refund of the excess comes back here).
    function buy(uint256 quantity, uint256 value) external payable {
        ISalePurchase(target).purchase{value: value}(address(this), quantity, new bytes32[](0), "");
    }

    receive() external payable {
        if (mode == 2) revert("TestReentrantReceiver: no");
        attempts += 1;
        if (attempts > 3) return;
        try ISalePurchase(target).purchase{value: msg.value}(address(this), 1, new bytes32[](0), "") {
            reentered = true;
        } catch (bytes memory reason) {
            if (mode == 1) {
                assembly {
                    revert(add(reason, 32), mload(reason))
                }
            }
        }
    }

    function onERC721Received(address, address, uint256, bytes calldata) external pure returns (bytes4) {
        return this.onERC721Received.selector;
    }
}
