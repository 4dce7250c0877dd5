// Simplified Chinese of documents to datacards (issue 22 part 7): every key of en.rag.ts.
import type { MessageTable } from './en';

export const zh_rag: Partial<MessageTable> = {
  'rag.import': '从文档导入',
  'rag.hint': '文本、Markdown、HTML 或 PDF 文件（最大 10 MB）将按章节生成 {name} 的资料卡。',
  'rag.pick': '选择文档',
  'rag.state.queued': '等待开始…',
  'rag.state.parsing': '正在读取文档…',
  'rag.state.chunking': '正在拆分为资料卡…',
  'rag.state.saving': '正在保存资料卡（{made}/{total}）…',
  'rag.state.done': '完成：已从 {file} 生成 {count} 张资料卡。',
  'rag.state.failed': '文档导入失败。',
  'rag.progress': '导入进度',
  'rag.refused': '有 {count} 个部分因内容规则被略去。',
  'rag.truncated': '文档较长：只保留了前 {count} 个部分。',
  'rag.timeout': '导入时间过长，请稍后再查看。',
  'rag.tooLarge': '此文件超过 10 MB。',
  'rag.made': '由文档生成',
  'rag.again': '再导入一个',
  ragFileTooLarge: '文档过大（最大 10 MB）。',
  ragFileType: '此文件不是文本、Markdown、HTML 或 PDF 文档。',
  ragPdfUnreadable: '无法读取此 PDF。',
  ragPdfEncrypted: '此 PDF 受密码保护，请上传未加密的副本。',
  ragDocumentEmpty: '文档中没有可读取的文字（扫描的 PDF 没有文字）。',
  ragJobInterrupted: '读取文档时被中断，请重试。',
  ragTooManyJobs: '已有文档正在读取，请等待其完成。',
  ragFormInvalid: '文档未能发送。请只选择一个文件后重试。',
};
