/**
 * The headers each official client sends with a JSON body (besides Authorization), so that
 * compatibility tests send what the clients send, not what a test helper would.
 */
export const CLIENT_HEADERS = {
  python: {
    Accept: 'application/json',
    'Content-Type': 'application/json',
    'User-Agent': 'iron_mq_python (version: 0.9)',
  },
  ruby: {
    'Content-Type': 'application/json',
    'User-Agent': 'iron_mq_ruby-6.0.5 (iron_core_ruby-1.0.9)',
  },
  rubyCache: {
    'Content-Type': 'application/json',
    'User-Agent': 'iron_cache_ruby-1.4.2 (iron_core_ruby-1.0.9)',
  },
  pythonCache: {
    Accept: 'application/json',
    'Content-Type': 'application/json',
    'User-Agent': 'iron_cache_python (version: 0.3.2)',
  },
  java: {
    'Content-Type': 'application/json',
    'User-Agent': 'IronMQ Java Client',
  },
} as const;

export type ClientName = keyof typeof CLIENT_HEADERS;
