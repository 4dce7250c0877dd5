// The editor's instances on the app's API client and store.
import { api } from '../app/services';
import { uploadFileWithId } from '../generator/upload';
import { appStore } from '../state/jotai';
import { EditorApi } from './api';
import { EditorSession } from './session';

export const editorApi = new EditorApi(api);

export const editorSession = new EditorSession({
  store: appStore,
  api: editorApi,
  tasks: api,
  upload: (file, fileName, category, onProgress) => uploadFileWithId({ api, file, fileName, category, onProgress }),
});
