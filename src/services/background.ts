/** Background duties (MetadataUpdate emitter, crash repair): one pass now, then one every interval. */

export interface BackgroundDuty {
  stop(): Promise<void>;
}

/** Runs `pass` now and `intervalMs` after each pass ends, until stopped (waits for a running pass). */
export function every(intervalMs: number, pass: () => Promise<unknown>, onError?: (err: unknown) => void): BackgroundDuty {
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    if (stopped) return;
    running = pass()
      .catch((err) => onError?.(err))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  timer = setTimeout(tick, 0);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
