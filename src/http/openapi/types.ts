/** The parts of an OpenAPI 3.1 document this gateway writes: enough types to keep the builders honest. */

/** A JSON Schema (2020-12, the dialect of OpenAPI 3.1): TypeBox schemas are JSON Schemas already. */
export type JsonSchema = Readonly<Record<string, unknown>>;

export interface Server {
  url: string;
  description?: string;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  description?: string;
  schema: JsonSchema;
}

/** A reference to a reusable part under components (parameters, headers). */
export interface Reference {
  $ref: string;
}

export interface MediaType {
  schema: JsonSchema;
}

export interface Header {
  description: string;
  schema: JsonSchema;
}

export interface Response {
  description: string;
  headers?: Record<string, Header | Reference>;
  content?: Record<string, MediaType>;
}

export interface RequestBody {
  required: boolean;
  description?: string;
  content: Record<string, MediaType>;
}

export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  parameters?: Array<Parameter | Reference>;
  requestBody?: RequestBody;
  responses: Record<string, Response | Reference>;
  /** `[]` for a route that needs no key; absent: the document's default (the gateway key) */
  security?: Array<Record<string, string[]>>;
  /** the scope an admin route checks (`<resource>.<action>`); absent where it depends on the resource */
  'x-gateway-scope'?: string;
}

export type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';

export type PathItem = Partial<Record<Method, Operation>> & {
  description?: string;
  /** where the path is served when not under the document's `/v1` server */
  servers?: Server[];
  parameters?: Array<Parameter | Reference>;
  /**
   * The parameter that stands for the rest of the path, several segments included (a Fastify `*` route): OpenAPI
   * path templates cannot say so themselves.
   */
  'x-gateway-wildcard-parameter'?: string;
};

export type Paths = Record<string, PathItem>;
