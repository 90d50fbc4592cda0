import { Body, Controller, Get, Module, Post } from '@nestjs/common';
import {
  ApiTokenAuth,
  assertCanWrite,
  assertDocsetsAllowed,
  AuthContext,
  CurrentAuth,
  RequireWrite,
} from '@docqa/accounts';

/**
 * Test-only Document API endpoints guarded the way the Document API will be: ApiTokenGuard,
 * `@CurrentAuth()`, the scope helpers and `@RequireWrite()`.
 */
@Controller('api/v1/document_proxy/__scope_probe')
@ApiTokenAuth()
class ScopeProbeController {
  @Get('whoami')
  whoami(@CurrentAuth() auth: AuthContext) {
    return auth;
  }

  @Post('ask')
  ask(@CurrentAuth() auth: AuthContext, @Body() body: { docSetNames: string[] }) {
    assertDocsetsAllowed(auth, body.docSetNames);
    return { ok: true };
  }

  @Post('index')
  index(@CurrentAuth() auth: AuthContext) {
    assertCanWrite(auth);
    return { ok: true };
  }

  @Post('delete')
  @RequireWrite()
  remove() {
    return { ok: true };
  }
}

@Module({ controllers: [ScopeProbeController] })
export class ScopeProbeModule {}
