// Simplified Chinese of account deletion and data export: en.deletion.ts
// keys, spread into zh.ts.
import type { MessageTable } from './en';

export const zh_deletion: Partial<MessageTable> = {
  deletionNotPending: '此账号没有待执行的删除。',
  exportRunning: '你的数据导出仍在进行中。',
  exportUnavailable: '没有可下载的数据导出。',

  'deletion.section': '删除账号',
  'deletion.title': '删除我的账号',
  'deletion.hint': '你的作品、聊天、角色、模型和上传文件将被删除，你将退出所有频道。付款记录会保留但不再关联你的名字。宽限期内可以取消。',
  'deletion.start': '删除我的账号…',
  'deletion.password': '密码',
  'deletion.email': '邮箱',
  'deletion.confirm': '删除我的账号',
  'deletion.back': '保留我的账号',
  'deletion.scheduled': '你的账号将于 {date} 删除。你已在所有设备上退出登录。',
  'deletion.cancelHint': '改变主意了？输入邮箱和密码即可取消删除。',
  'deletion.cancel': '取消删除',
  'export.title': '导出我的数据',
  'export.hint': '包含你的数据和媒体文件的 ZIP 文件，可在几天内下载。',
  'export.request': '导出我的数据',
  'export.running': '正在准备导出… {progress}%',
  'export.download': '下载',
  'export.expires': '可下载至 {date}。',
  'export.failed': '导出失败，请重试。',
  'deletion.loginScheduled': '此账号将于 {date} 删除。',
  'deletion.cancelAndSignIn': '取消删除并登录',
  'deletion.cancelHintPhone': '改变主意了？我们会向 {phone} 发送验证码，输入即可取消删除。',
  'deletion.cancelHintProvider': '改变主意了？用你使用的第三方账号重新登录即可取消删除。',
  'deletion.phone': '手机号',
  'deletion.sendCode': '发送验证码',
  'deletion.code': '短信验证码',
  'deletion.codeSent': '验证码已发送至 {phone}。',
  'deletion.cancelWith': '通过 {provider} 取消',
  'deletion.confirmPhoneHint': '你的账号没有密码：我们会向 {phone} 发送验证码以确认。',
};
