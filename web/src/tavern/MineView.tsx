import { useEffect, useState } from 'react';
import { useT } from '../i18n/useT';
import { tavernApi } from './actions';
import { CharacterGrid } from './CharacterTile';
import { ImportCard } from './ImportCard';
import type { CharacterCard } from './model';
import { useErrorText } from './useErrorText';

/** The caller's characters, drafts included, and the card import. */
export function MineView() {
  const t = useT();
  const errorText = useErrorText();
  const [items, setItems] = useState<CharacterCard[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let stale = false;
    tavernApi
      .mine()
      .then((list) => !stale && setItems(list))
      .catch((e: unknown) => !stale && setError(errorText(e)));
    return () => {
      stale = true;
    };
  }, [errorText]);

  return (
    <div className="tavern__mine">
      <ImportCard />
      {error !== null && (
        <p className="tavern__error" role="alert">
          {error}
        </p>
      )}
      {items === null && error === null && <p className="tavern__note">{t('tavern.loading')}</p>}
      {items !== null && items.length === 0 && <p className="tavern__empty">{t('tavern.mine.empty')}</p>}
      {items !== null && items.length > 0 && <CharacterGrid cards={items} label={t('tavern.mine')} />}
    </div>
  );
}
