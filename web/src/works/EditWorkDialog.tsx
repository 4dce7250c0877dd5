import { useState } from 'react';
import type { FormEvent } from 'react';
import { Dialog } from '../generator/Dialog';
import { useT } from '../i18n/useT';
import { squareApi } from '../square/actions';
import type { WorkDetail } from '../square/types';
import { useErrorText } from '../tavern/useErrorText';
import { checkBody, checkTitle, MAX_ARTICLE_CHARS, MAX_DESCRIPTION_CHARS, normaliseTags, splitTags } from './publish';
import type { ProblemKey } from './publish';
import { WorkFields } from './WorkFields';
import type { WorkFieldsValue } from './WorkFields';

/** The author's edit of a work: the texts, tags, visibility and flags (`portfolio/edit`, `post/article/edit`). */
export function EditWorkDialog({ work, onClose, onSaved }: { work: WorkDetail; onClose: () => void; onSaved: (w: WorkDetail) => void }) {
  const t = useT();
  const errorText = useErrorText();
  const article = work.kind === 'article';
  const [value, setValue] = useState<WorkFieldsValue>({
    title: work.title,
    description: article ? (work.content ?? '') : work.description,
    tags: work.tags.join(', '),
    visibility: work.visibility,
    nsfw: work.nsfw,
    hideParams: work.hide_params,
  });
  const [problems, setProblems] = useState<Partial<Record<'title' | 'description' | 'tags', ProblemKey>>>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function save(e: FormEvent) {
    e.preventDefault();
    const found: Partial<Record<'title' | 'description' | 'tags', ProblemKey>> = {};
    const title = checkTitle(value.title);
    if (title) found.title = title;
    const body = checkBody(value.description, article ? MAX_ARTICLE_CHARS : MAX_DESCRIPTION_CHARS);
    if (body) found.description = body;
    const tags = normaliseTags(splitTags(value.tags));
    if (tags.problem) found.tags = tags.problem;
    setProblems(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    setError(null);
    try {
      const saved = await squareApi.edit(work.kind, {
        id: work.id,
        title: value.title.trim(),
        ...(article ? { content: value.description.trim() } : { description: value.description.trim(), hide_params: value.hideParams }),
        tags: tags.tags,
        visibility: value.visibility,
        nsfw: value.nsfw,
      });
      onSaved(saved);
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  }

  return (
    <Dialog title={t('works.editTitle')} closeLabel={t('tavern.dialog.close')} onClose={onClose} className="work-dialog">
      <form onSubmit={(e) => void save(e)}>
        <WorkFields
          value={value}
          onChange={setValue}
          problems={problems}
          descriptionLabel={article ? t('works.form.article') : undefined}
          descriptionMax={article ? MAX_ARTICLE_CHARS : MAX_DESCRIPTION_CHARS}
          showHideParams={!article}
        />
        {error !== null && (
          <p className="sq-error" role="alert">
            {error}
          </p>
        )}
        <div className="tavern-dialog__buttons">
          <button type="button" className="button" onClick={onClose}>
            {t('tavern.form.cancel')}
          </button>
          <button type="submit" className="button button--primary" disabled={busy}>
            {t('works.save')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
