import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn } from 'class-validator';
import { MAX_LIST_ITEMS, ToStringList } from '../common/validation/decorators';

/** The record kinds whose changes are announced (docs/api.md §15). */
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

/** `events` of a webhook write: 1–100 subscribable types, in any list form. */
export function IsSubscription(required: boolean): PropertyDecorator {
  return applyDecorators(
    ToStringList(),
    IsArray(),
    ArrayMinSize(1),
    ArrayMaxSize(MAX_LIST_ITEMS),
    IsIn(SUBSCRIBABLE_TYPES, { each: true }),
    ApiProperty({
      required,
      type: 'array',
      items: { type: 'string', enum: SUBSCRIBABLE_TYPES },
      minItems: 1,
      maxItems: MAX_LIST_ITEMS,
    }),
  );
}
