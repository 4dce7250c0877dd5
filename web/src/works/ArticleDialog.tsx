import { useId, useState } from 'react';
import type { ChangeEvent, FormEvent } from 'react';
import { api } from '../app/services';
import { Dialog } from '../generator/Dialog';
import { IMAGE_UPLOAD_CATEGORY, uploadFile } from '../generator/upload';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom, navigate } from '../router/router';
import { squareApi } from '../square/actions';
import { workPath } from '../square/route';
import { appStore, useAtomValue } from '../state/jotai';
import { useErrorText } from '../tavern/useErrorText';
import { checkBody, checkTitle, MAX_ARTICLE_CHARS, normaliseTags, splitTags } from './publish';
import type { ProblemKey } from './publish';
import { WorkFields } from './WorkFields';
import type { WorkFieldsValue } from './WorkFields';

type Field = 'title' | 'description' | 'tags';

/** Writes an article (Markdown, an optional cover) and opens its page (`post/article/add`). */
export function ArticleDialog({ onClose }: { onClose: () => void }) {
  const t = useT();
  const errorText = useErrorText();
  const locale = useAtomValue(localeAtom);
  const coverId = useId();
  const [value, setValue] = useState<WorkFieldsValue>({ title: '', description: '', tags: '', visibility: 'public', nsfw: false, hideParams: false });
  const [cover, setCover] = useState('');
  const [uploading, setUploading] = useState(false);
  const [problems, setProblems] = useState<Partial<Record<Field, ProblemKey>>>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function pick(e: ChangeEvent<HTMLInputElement>) {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    setUploading(true);
    setError(null);
    try {
      setCover(await uploadFile({ api, file, fileName: file.name, category: IMAGE_UPLOAD_CATEGORY }));
    } catch (err) {
      setError(errorText(err));
    } finally {
      setUploading(false);
    }
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    const found: Partial<Record<Field, ProblemKey>> = {};
    const title = checkTitle(value.title);
    if (title) found.title = title;
    const body = value.description.trim() === '' ? 'WorkTextInvalid' : checkBody(value.description, MAX_ARTICLE_CHARS);
    if (body) found.description = body;
    const tags = normaliseTags(splitTags(value.tags));
    if (tags.problem) found.tags = tags.problem;
    setProblems(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    setError(null);
    try {
      const { id } = await squareApi.publishArticle({
        title: value.title.trim(),
        content: value.description.trim(),
        tags: tags.tags,
        visibility: value.visibility,
        nsfw: value.nsfw,
        ...(cover !== '' ? { cover } : {}),
      });
      onClose();
      navigate(appStore, localePath(locale, workPath(id, true)));
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  }

  return (
    <Dialog title={t('works.article.title')} closeLabel={t('tavern.dialog.close')} onClose={onClose} className="work-dialog">
      <form onSubmit={(e) => void submit(e)} data-testid="article-form">
        <div className="profile-form__avatar">
          {cover !== '' && <img src={cover} alt="" className="publish-images__single" />}
          <label htmlFor={coverId} className="button button--small">
            {t('works.article.cover')}
          </label>
          <input id={coverId} type="file" accept="image/png,image/jpeg,image/webp" className="visually-hidden" onChange={(e) => void pick(e)} />
          {uploading && <span className="muted">{t('profile.avatarUploading')}</span>}
        </div>
        <WorkFields
          value={value}
          onChange={setValue}
          problems={problems}
          descriptionLabel={t('works.form.article')}
          descriptionMax={MAX_ARTICLE_CHARS}
          showHideParams={false}
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
          <button type="submit" className="button button--primary" disabled={busy || uploading}>
            {t('works.article.publish')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
