import type { z } from 'zod';

/** A client-to-server request (or server-to-client request): params and result schemas. */
export interface MethodSpec<P extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  readonly params: P;
  readonly result: R;
  readonly summary: string;
}

/** A one-way message: its params schema. */
export interface NotificationSpec<P extends z.ZodType = z.ZodType> {
  readonly params: P;
  readonly summary: string;
}

export function defineMethod<P extends z.ZodType, R extends z.ZodType>(
  params: P,
  result: R,
  summary: string,
): MethodSpec<P, R> {
  return { params, result, summary };
}

export function defineNotification<P extends z.ZodType>(params: P, summary: string): NotificationSpec<P> {
  return { params, summary };
}
