import type { HttpClient } from './http.js';

/** A test client of one project's API: the HTTP client it calls with and the project it speaks for. */
export class ProjectClient {
  constructor(
    readonly http: HttpClient,
    readonly projectId: string,
  ) {}
}
