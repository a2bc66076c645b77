/** What the hot test functions (images ferrum-test/fn-hot-*) answer: the call as they saw it. */
export interface HotEcho {
  calls: number;
  hostname: string;
  method: string;
  url: string;
  body: string;
  echo: string | null;
  greeting: string | null;
  callId: string;
  deadline: string;
}
