/** What the feedback use cases take (api-surface §3.24). */
export interface CreateFeedbackInput {
  trace_id: string;
  /** an integer from -10 to 10 */
  value: number;
  /** 0..1, default 1 */
  weight?: number | undefined;
  metadata?: Record<string, unknown> | undefined;
}

export interface UpdateFeedbackInput {
  value: number;
  /** absent: unchanged */
  weight?: number | undefined;
  /** absent: unchanged */
  metadata?: Record<string, unknown> | undefined;
}
