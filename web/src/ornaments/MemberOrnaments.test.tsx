// Channel members wear their avatar ornaments: one `worn-of` call for the
// whole list, an overlay only on those wearing one.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemberList } from '../channels/MemberList';
import { channelMembersAtom } from '../channels/atoms';
import { appStore, Provider } from '../state/jotai';
import { ornamentApi } from './actions';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

afterEach(() => {
  vi.restoreAllMocks();
  appStore.set(channelMembersAtom, {});
});

describe('channel members', () => {
  it('show the ornaments they wear', async () => {
    const asked: string[][] = [];
    vi.spyOn(ornamentApi, 'wornOf').mockImplementation(async (ids) => {
      asked.push(ids);
      return { u1: '/files/halo.png' };
    });
    appStore.set(channelMembersAtom, {
      c1: [
        { account_id: 'u1', name: 'Ada', role: 'owner', avatar: null },
        { account_id: 'u2', name: 'Bea', role: 'member', avatar: null },
      ],
    });
    const div = document.createElement('div');
    const root = createRoot(div);
    act(() =>
      root.render(
        <Provider store={appStore}>
          <MemberList channelId="c1" />
        </Provider>,
      ),
    );
    await act(async () => {
      for (let i = 0; i < 6; i++) await Promise.resolve();
    });
    expect(asked).toEqual([['u1', 'u2']]);
    const overlays = [...div.querySelectorAll('[data-testid="ornament-overlay"]')].map((x) => x.getAttribute('src'));
    expect(overlays).toEqual(['/files/halo.png']);
    act(() => root.unmount());
  });
});
