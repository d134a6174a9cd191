declare module 's3rver' {
  import type { AddressInfo } from 'node:net';
  export interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    configureBuckets?: { name: string }[];
  }
  /** The part of Koa's context the fixture touches (s3rver is a Koa app). */
  export interface S3rverContext {
    method: string;
    status: number;
    length: number;
    type: string;
    body: unknown;
    get(header: string): string;
    set(header: string, value: string): void;
    response: { get(header: string): string };
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    middleware: ((ctx: S3rverContext, next: () => Promise<void>) => Promise<void>)[];
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }
}
