// The channels page's paths: `/channels` and `/channels/{id}` (after the locale).

/** True for the paths the channels page owns. */
export function isChannelsPath(rest: string): boolean {
  return rest === '/channels' || rest === '/channels/' || /^\/channels\/[^/]+\/?$/.test(rest);
}

/** The channel id in `/channels/{id}`, or null. */
export function channelIdFromPath(rest: string): string | null {
  const m = /^\/channels\/([^/]+)\/?$/.exec(rest);
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return null;
  }
}

export function channelPath(channelId: string | null): string {
  return channelId === null ? '/channels' : `/channels/${encodeURIComponent(channelId)}`;
}
