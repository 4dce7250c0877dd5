// The app's one SurveysApi, on the shared client and token.
import { tokenAtom } from '../account/atoms';
import { api } from '../app/services';
import { appStore } from '../state/jotai';
import { SurveysApi } from './api';

export const surveysApi = new SurveysApi(api, () => appStore.get(tokenAtom));
