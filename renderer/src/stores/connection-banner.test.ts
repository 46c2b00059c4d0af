import { describe, expect, it } from 'vitest';
import type { ConnectionSnapshot } from '../client/wheelhouse-client.js';
import { connectionBanner, isLive } from './connection-banner.js';

const snapshot = (patch: Partial<ConnectionSnapshot>): ConnectionSnapshot => ({ status: 'connected', error: null, server: null, problem: null, closedByServer: false, ...patch });

describe('the connection banner', () => {
  it('is not there while all is well or while the first connection is made', () => {
    expect(connectionBanner(snapshot({}), null, false)).toBeNull();
    expect(connectionBanner(snapshot({ status: 'connecting' }), null, false)).toBeNull();
    expect(connectionBanner(snapshot({}), { state: 'starting' }, false)).toBeNull();
  });

  it('says Wheelhouse stopped when the server said so, without repeating its advice to start it again', () => {
    const banner = connectionBanner(snapshot({ status: 'reconnecting', error: 'Wheelhouse stopped. Start it again and this page reconnects.', closedByServer: true }), null, false);
    expect(banner).toMatchObject({ title: 'Wheelhouse has stopped', detail: null, action: 'retry' });
    expect(banner?.hint).toContain('not live');
  });

  it('says the connection was lost, with why, when the link dropped', () => {
    expect(connectionBanner(snapshot({ status: 'reconnecting', error: 'Connection lost' }), null, false)).toMatchObject({ title: 'Lost the connection to Wheelhouse', detail: 'Connection lost' });
  });

  it('in the desktop app offers a restart when the runtime could not start, and shows the restart under way', () => {
    expect(connectionBanner(snapshot({}), { state: 'failed', reason: 'Another Wheelhouse is using its data.' }, false)).toMatchObject({
      title: 'Wheelhouse could not start',
      detail: 'Another Wheelhouse is using its data.',
      action: 'restart',
      busy: false,
    });
    expect(connectionBanner(snapshot({}), { state: 'failed', reason: 'x' }, true)).toMatchObject({ title: 'Restarting Wheelhouse…', busy: true });
    expect(connectionBanner(snapshot({}), { state: 'restarting' }, false)).toMatchObject({ busy: true });
  });

  it('leaves a token problem to the access page', () => {
    expect(connectionBanner(snapshot({ status: 'disconnected', problem: 'token-refused' }), null, false)).toBeNull();
  });

  it('calls the window live only when connected to a running runtime', () => {
    expect(isLive('connected', null)).toBe(true);
    expect(isLive('reconnecting', null)).toBe(false);
    expect(isLive('connected', { state: 'failed', reason: 'x' })).toBe(false);
    expect(isLive('connected', { state: 'running' })).toBe(true);
  });
});
