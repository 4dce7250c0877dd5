// The links an account set in its settings, on its public profile. Only
// http(s) URLs reach here (the server checks them); they open in a new tab
// without handing the page over (noopener) or vouching for them (nofollow).
export function ProfileLinks({ links }: { links: string[] }) {
  const safe = links.filter((l) => /^https?:\/\//i.test(l));
  if (safe.length === 0) return null;
  return (
    <ul className="profile__links" data-testid="profile-links">
      {safe.map((l) => (
        <li key={l}>
          <a href={l} target="_blank" rel="nofollow noopener noreferrer ugc">
            {label(l)}
          </a>
        </li>
      ))}
    </ul>
  );
}

/** The host and path, without the scheme and a trailing slash. */
export function label(url: string): string {
  return url.replace(/^https?:\/\//i, '').replace(/\/$/, '');
}
