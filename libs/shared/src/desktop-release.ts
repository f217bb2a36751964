// A desktop release as desktop's internal admin routes answer it and auth passes it on to the admin
// console: the one wire shape both services read.
export interface DesktopReleaseRecord {
  platform: 'win32' | 'darwin' | 'linux';
  version: string;
  url: string;
  sha256: string;
  notes: string;
  mandatory: boolean;
  publishedAt: string;
  /** Set once the release is withdrawn. */
  withdrawnAt: string | null;
}
