import * as React from 'react';

import { IScanFilters } from '../tokens';

/** What the scan line says, and whether it is good news. */
export function scanSummary(scan: IScanFilters): {
  text: string;
  reached: boolean;
} {
  if (!scan.scan) {
    return {
      text: 'no file scan: the source is in memory, nothing to skip',
      reached: false
    };
  }
  const reached = scan.conjuncts.filter(c => c.reaches_scan).length;
  if (scan.all_pushed) {
    return { text: `reaches the ${scan.scan} scan`, reached: true };
  }
  if (reached > 0) {
    return {
      text: `${reached} of ${scan.conjuncts.length} conjuncts reach the ${scan.scan} scan`,
      reached: true
    };
  }
  return {
    text: 'not a scan filter: evaluated after reading',
    reached: false
  };
}

/** One line: does the pushed predicate reach the source's scan (PushedFilters)? */
export function ScanFilters(props: {
  scan: IScanFilters | null | undefined;
}): JSX.Element | null {
  const { scan } = props;
  if (!scan) {
    return null;
  }
  const { text, reached } = scanSummary(scan);
  const filters = [...scan.partition_filters, ...scan.pushed];
  const title =
    scan.note ??
    (filters.length > 0
      ? `Scan filters: ${filters.join(', ')}`
      : 'Spark evaluates the predicate on the rows it has read');
  return (
    <p
      className={`jp-MagicPush-scan ${reached ? 'jp-MagicPush-scan-reached' : 'jp-MagicPush-muted'}`}
      title={title}
    >
      {text}
    </p>
  );
}
