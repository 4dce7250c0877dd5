import { useState } from 'react';
import { useT } from '../i18n/useT';
import { useAtomValue } from '../state/jotai';
import { useErrorText } from '../tavern/useErrorText';
import { setFollowing } from './actions';
import { followsAtom } from './atoms';

/** Follow or unfollow an account; the newest answer (from any page) is what shows. */
export function FollowButton({ accountId, following: loaded, onChange }: { accountId: string; following: boolean; onChange?: (following: boolean, followers: number) => void }) {
  const t = useT();
  const errorText = useErrorText();
  const known = useAtomValue(followsAtom)[accountId];
  const following = known?.following ?? loaded;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function toggle() {
    setBusy(true);
    setError(null);
    try {
      const answer = await setFollowing(accountId, !following);
      if (answer) onChange?.(answer.following, answer.followers);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  }
  return (
    <span className="sq-follow">
      <button
        type="button"
        className={`button button--small${following ? '' : ' button--primary'}`}
        aria-pressed={following}
        disabled={busy}
        onClick={() => void toggle()}
        data-testid="follow-button"
      >
        {following ? t('square.follow.following') : t('square.follow.follow')}
      </button>
      {error !== null && (
        <span className="sq-error" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}
