import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerStaticRequest, contentSecurityPolicy } from '../files/static-site.js';

/** Serves the built renderer from `root` over HTTP (`wheelhouse serve`); the site rules are in static-site.ts. */
export async function serveStatic(root: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let pathname: string;
  try {
    pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
  } catch {
    res.writeHead(400).end();
    return;
  }
  const answer = await answerStaticRequest({ method: req.method ?? 'GET', encodedPathname: pathname }, root, contentSecurityPolicy());
  if (res.destroyed) return;
  res.writeHead(answer.status, answer.headers);
  if ('text' in answer) {
    res.end(answer.text);
    return;
  }
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const stream = fs.createReadStream(answer.file);
  // The file can vanish between stat and open (a rebuild while serving).
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}
