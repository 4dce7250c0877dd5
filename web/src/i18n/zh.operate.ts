// Simplified Chinese of the operators' console frame: en.operate.ts keys; spread into zh.ts.
import type { MessageTable } from './en';

export const zh_operate: Partial<MessageTable> = {
  'operate.title': '运营后台',
  'operate.forbidden': '只有运营人员可以打开此后台。',
  'operate.loading': '正在确认你的角色…',
  'operate.empty': '暂无工具。',
  'operate.headerLink': '运营',
};
