/** A changeset not yet released: its file, the bump it asks of pg-checkout, its summary. */
export interface PendingChangeset {
  file: string;
  bump: 'major' | 'minor' | 'patch';
  summary: string;
}
export declare const PENDING_PLACEHOLDER: RegExp;
/** The changesets of `dir` (default .changeset/) not yet released; throws on one without a bump. */
export declare function pendingChangesets(dir?: string): PendingChangeset[];
/** The next release's notes, as Markdown. */
export declare function pendingChangesetsMarkdown(changesets?: PendingChangeset[]): string;
/** `source` with its `<!-- pending-changesets -->` line replaced by the next release's notes. */
export declare function expandPendingChangesets(source: string): string;
