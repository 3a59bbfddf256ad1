// Wallets for the mint page (docs/mint-page.md): EIP-6963 discovery (every installed wallet
// announces itself), else the legacy window.ethereum; then plain EIP-1193 requests.

/** The wallets that answer eip6963:requestProvider within `waitMs`, plus window.ethereum when none do. */
export function discoverWallets(waitMs = 400) {
  return new Promise((resolve) => {
    const found = new Map();
    const onAnnounce = (event) => {
      const { info, provider } = event.detail ?? {};
      if (info?.uuid && provider && typeof provider.request === 'function') found.set(info.uuid, { info, provider });
    };
    window.addEventListener('eip6963:announceProvider', onAnnounce);
    window.dispatchEvent(new Event('eip6963:requestProvider'));
    setTimeout(() => {
      window.removeEventListener('eip6963:announceProvider', onAnnounce);
      const list = [...found.values()];
      if (list.length === 0 && window.ethereum && typeof window.ethereum.request === 'function') {
        list.push({ info: { uuid: 'window.ethereum', name: 'Browser wallet', icon: '', rdns: '' }, provider: window.ethereum });
      }
      resolve(list);
    }, waitMs);
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A small EIP-1193 client over one provider. */
export function walletClient(provider) {
  const request = (method, params) => provider.request(params === undefined ? { method } : { method, params });
  return {
    request,
    async connect() {
      const accounts = await request('eth_requestAccounts');
      if (!Array.isArray(accounts) || accounts.length === 0) throw new Error('the wallet shared no account');
      return accounts[0];
    },
    /** Switches to `chainId` when the wallet is elsewhere (4902: the wallet does not know the chain). */
    async ensureChain(chainId) {
      const want = `0x${chainId.toString(16)}`;
      const current = await request('eth_chainId');
      if (typeof current === 'string' && BigInt(current) === BigInt(chainId)) return;
      try {
        await request('wallet_switchEthereumChain', [{ chainId: want }]);
      } catch (err) {
        if (err?.code === 4902) throw new Error(`add chain ${chainId} to your wallet first, then mint again`);
        throw err;
      }
    },
    send(tx) {
      return request('eth_sendTransaction', [tx]);
    },
    /** Polls the receipt until mined (or `timeoutMs` passes). */
    async receipt(hash, timeoutMs = 180_000) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const r = await request('eth_getTransactionReceipt', [hash]);
        if (r) return r;
        if (Date.now() > end) throw new Error(`transaction ${hash} not mined after ${timeoutMs / 1000} s`);
        await sleep(1000);
      }
    },
  };
}
