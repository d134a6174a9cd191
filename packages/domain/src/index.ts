export * from './errors.ts';
export * from './model/types.ts';
export type * from './ports.ts';
export type * from './model/views.ts';
