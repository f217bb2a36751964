// Reads a service's health endpoints.
export async function health(port: number, which: 'live' | 'ready'): Promise<{ status: number; body: any }> {
  const res = await fetch(`http://127.0.0.1:${port}/health/${which}`);
  return { status: res.status, body: await res.json() };
}
