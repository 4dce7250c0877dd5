import { useState } from 'react';
import { accountAtom } from '../account/atoms';
import { showToast } from '../app/toast';
import { Dialog } from '../generator/Dialog';
import { useT } from '../i18n/useT';
import { WithOrnament } from '../ornaments/OrnamentAvatar';
import { useWornOf } from '../ornaments/useWornOf';
import { appStore, useAtomValue } from '../state/jotai';
import { channelApi, loadMembers } from './actions';
import { channelMembersAtom } from './atoms';
import { canModerate } from './model';
import type { ChannelMember, ChannelRole } from './model';
import { useErrorText } from './useErrorText';

const ROLE_KEY = {
  owner: 'channels.role.owner',
  admin: 'channels.role.admin',
  member: 'channels.role.member',
} as const;

/** May `actor` remove `target`? Owners remove anyone else; admins remove plain members. */
export function canKick(actor: ChannelRole | null, target: ChannelMember, me: string | null): boolean {
  if (!canModerate(actor) || target.account_id === me || target.role === 'owner') return false;
  return actor === 'owner' || target.role === 'member';
}

function PersonPopup({
  channelId,
  member,
  myRole,
  me,
  onClose,
}: {
  channelId: string;
  member: ChannelMember;
  myRole: ChannelRole | null;
  me: string | null;
  onClose: () => void;
}) {
  const t = useT();
  const errorText = useErrorText();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function kick() {
    setPending(true);
    setError(null);
    try {
      await channelApi.kickOut(channelId, member.account_id);
      await loadMembers(channelId).catch(() => undefined);
      showToast(appStore, t('channels.kicked', { name: member.name }));
      onClose();
    } catch (err) {
      setError(errorText(err));
      setPending(false);
    }
  }

  return (
    <Dialog title={member.name} closeLabel={t('channels.close')} onClose={onClose} className="person-popup">
      <p className="person-popup__role">
        {t(ROLE_KEY[member.role])} {member.account_id === me && t('channels.you')}
      </p>
      {error !== null && (
        <p className="channels__error" role="alert">
          {error}
        </p>
      )}
      {canKick(myRole, member, me) && (
        <button type="button" className="button button--danger" disabled={pending} onClick={() => void kick()}>
          {t('channels.kick')}
        </button>
      )}
    </Dialog>
  );
}

/** The channel's members; a click opens the person popup. */
export function MemberList({ channelId }: { channelId: string }) {
  const t = useT();
  const me = useAtomValue(accountAtom)?.id ?? null;
  const members = useAtomValue(channelMembersAtom)[channelId] ?? [];
  const [open, setOpen] = useState<string | null>(null);
  const myRole = members.find((m) => m.account_id === me)?.role ?? null;
  const person = members.find((m) => m.account_id === open) ?? null;
  const ornaments = useWornOf(members.map((m) => m.account_id));
  return (
    <section className="members" aria-label={t('channels.members', { count: members.length })}>
      <h2 className="members__title">{t('channels.members', { count: members.length })}</h2>
      <ul className="members__list" data-testid="member-list">
        {members.map((m) => (
          <li key={m.account_id}>
            <button type="button" className="members__person" onClick={() => setOpen(m.account_id)}>
              <WithOrnament ornament={ornaments[m.account_id]} size={28}>
                <span className="members__avatar" aria-hidden="true">
                  {m.name.slice(0, 1).toUpperCase()}
                </span>
              </WithOrnament>
              <span className="members__name">
                {m.name} {m.account_id === me && <span className="members__you">{t('channels.you')}</span>}
              </span>
              {m.role !== 'member' && <span className="members__role">{t(ROLE_KEY[m.role])}</span>}
            </button>
          </li>
        ))}
      </ul>
      {person !== null && (
        <PersonPopup channelId={channelId} member={person} myRole={myRole} me={me} onClose={() => setOpen(null)} />
      )}
    </section>
  );
}
