// Simplified Chinese of third-party sign-in (issue 21 item 2): every key of en.oidc.ts.
import type { MessageTable } from './en';

export const zh_oidc: Partial<MessageTable> = {
  OidcProviderUnknown: '此登录方式不可用。',
  OidcStateInvalid: '此次登录已过期或已使用，请重新开始。',
  OidcTokenInvalid: '无法验证登录服务商的应答。',
  OidcTokenExpired: '登录服务商的应答已过期，请重新开始。',
  OidcNonceMismatch: '登录服务商的应答不属于本次登录，请重新开始。',
  OidcProviderError: '登录服务商出错，请稍后再试。',
  OidcEmailTaken: '已有账号使用此邮箱。请先登录该账号，再在设置中关联此登录方式。',
  OidcIdentityTaken: '此第三方账号已关联到另一个 Easel 账号。',
  OidcLastSignIn: '这是你账号唯一的登录方式：请先设置密码或关联其他登录方式。',
  OidcNotLinked: '你的账号未关联此登录方式。',
  OidcNotThisAccount: '请使用与此账号关联的第三方账号登录。',
  'oidc.or': '或',
  'oidc.continueWith': '使用 {provider} 继续',
  'oidc.callbackTitle': '正在登录…',
  'oidc.callbackFailed': '登录未完成',
  'oidc.denied': '登录服务商未完成登录。',
  'oidc.backHome': '返回首页',
  'oidc.linked.title': '关联账号',
  'oidc.linked.hint': '除密码外，也可以用这些第三方账号登录。',
  'oidc.linked.none': '尚未关联任何第三方账号。',
  'oidc.linked.since': '关联于 {date}',
  'oidc.linked.link': '关联 {provider}',
  'oidc.linked.unlink': '取消关联',
};
