import { fuzzRouteGroup } from '../../helpers/generated/route-groups.js';

// Generated bodies, names, query strings, headers and numbers to every route of the group (see route-groups.ts).
fuzzRouteGroup('functions');
