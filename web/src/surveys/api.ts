// The questionnaire and short-link calls (issue 22): users' `app/questionnaire_survey`
// and `_submit`, operators' `admin/survey/*` (the CSV export as a file), and `url/short`.
import type { ApiClient } from '../api/client';
import type { SubmitAnswer, SurveyDef, SurveyResults, SurveyView } from './model';

export interface ShortLink {
  cloud_cdn: string;
  code: string;
  url: string;
  expires_at: number;
}

export class SurveysApi {
  constructor(
    private readonly api: ApiClient,
    private readonly token: () => string | null,
  ) {}

  openForMe(): Promise<{ survey: SurveyView | null; items: SurveyView[] }> {
    return this.api.post('/api/v1/app/questionnaire_survey', {});
  }

  submit(body: { survey_id: string; answers: SubmitAnswer[] }): Promise<{ submitted: boolean }> {
    return this.api.post('/api/v1/app/questionnaire_survey_submit', body);
  }

  list(): Promise<{ items: SurveyView[] }> {
    return this.api.post('/api/v1/admin/survey/list', {});
  }

  create(def: SurveyDef): Promise<SurveyView> {
    return this.api.post('/api/v1/admin/survey/create', def);
  }

  /** Replaces a survey's definition; its answers are kept. */
  edit(id: string, def: SurveyDef): Promise<SurveyView> {
    return this.api.post('/api/v1/admin/survey/edit', { ...def, id });
  }

  setClosed(id: string, closed: boolean): Promise<SurveyView> {
    return this.api.post('/api/v1/admin/survey/close', { id, closed });
  }

  results(id: string): Promise<SurveyResults> {
    return this.api.post('/api/v1/admin/survey/results', { id });
  }

  /** The CSV export (the token in its header, so it cannot be a plain link). */
  async csv(id: string): Promise<Blob> {
    const token = this.token();
    const res = await fetch(`/api/v1/admin/survey/export?id=${encodeURIComponent(id)}`, { headers: token ? { token } : {} });
    if (!res.ok) throw new Error(`export failed (HTTP ${res.status})`);
    return res.blob();
  }

  shorten(url: string): Promise<ShortLink> {
    return this.api.post('/api/v1/url/short', { url });
  }
}
