/** The record kinds whose changes are announced (contract §15). */
export const WEBHOOK_KINDS = ['event', 'venue', 'organizer', 'category', 'tag'] as const;
export const WEBHOOK_ACTIONS = ['created', 'updated', 'deleted'] as const;

/** Every message type an endpoint may subscribe to, and `*` for all of them. */
export const SUBSCRIBABLE_TYPES = [
  '*',
  ...WEBHOOK_KINDS.flatMap((kind) => WEBHOOK_ACTIONS.map((action) => `${kind}.${action}`)),
];

/** Sent by `POST /webhooks/{id}/ping` whatever the endpoint subscribes to. */
export const PING = 'ping';

export function subscribes(events: string[], type: string): boolean {
  return events.includes('*') || events.includes(type);
}
