// A collection's chain events, live over socket.io at this origin (path /socket.io): join the
// room `app:<address>` (again after every reconnect) and hand each mint and transfer to `onEvent`.
// The client is the socket.io browser build served by the admin proxy (/ui/vendor/), so the strict
// CSP ('self' only) holds.

const EVENTS = ['emprops:appToken:minted', 'emprops:appToken:transferred', 'emprops:appToken:transfer_retracted'];

/**
 * `onEvent(name, payload)`; `onState('live' | 'connecting' | 'offline', detail)`. Answers stop().
 */
export function followCollection(address, { onEvent, onState }) {
  let socket;
  let stopped = false;
  const room = `app:${address.toLowerCase()}`;
  onState('connecting');
  import('/ui/vendor/socket.io.esm.min.js')
    .then(({ io }) => {
      if (stopped) return;
      socket = io({ path: '/socket.io', transports: ['websocket', 'polling'] });
      socket.on('connect', () => {
        socket.emit('subscribe', { room }, (ack) => {
          if (ack?.ok) onState('live');
          else onState('offline', ack?.error ?? 'the room was refused');
        });
      });
      socket.on('disconnect', () => onState('connecting'));
      socket.on('connect_error', (err) => onState('offline', err.message));
      for (const name of EVENTS) socket.on(name, (payload) => onEvent(name, payload));
    })
    .catch((err) => onState('offline', `the realtime client did not load: ${err.message}`));
  return () => {
    stopped = true;
    socket?.disconnect();
  };
}
