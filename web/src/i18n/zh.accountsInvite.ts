// Simplified Chinese of en.accountsInvite.ts (phone sign-in, invite codes,
// the membership popup); spread into zh.ts.
import type { MessageTable } from './en';

export const zh_accountsInvite: Partial<MessageTable> = {
  PhoneInvalid: '请输入带国家代码的有效手机号，例如 +86 138 0013 8000。',
  SmsTooFrequent: '验证码刚刚已发送，请稍后再试。',
  SmsSendFailed: '验证码发送失败，请稍后重试。',
  PopupParamInvalid: '该值无效。',
  'login.inviteCode': '邀请码（可选）',
  'login.tabPhone': '手机',
  'login.phone': '手机号',
  'login.smsCode': '短信验证码',
  'login.sendCode': '发送验证码',
  'login.codeSent': '验证码已发送至 {phone}。',
  'invite.title': '邀请好友',
  'invite.yourCode': '你的邀请码',
  'invite.link': '邀请链接',
  'invite.copy': '复制链接',
  'invite.copied': '已复制',
  'invite.count': '使用你的邀请码注册的账号：{n}',
  'invite.credits': '你将获得 {inviter} 积分，好友获得 {invitee} 积分。',
  'invite.invitedBy': '你由 {name} 邀请。',
  'vipPop.title': '成为会员',
  'vipPop.body': '会员享有无限队列、更高视频画质和更多每月积分。',
  'vipPop.confirm': '查看套餐',
  'vipPop.later': '以后再说',
  'vipPop.never': '不再显示',
};
