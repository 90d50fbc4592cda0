import { Body, Controller, Module, Post } from '@nestjs/common';
import { IsInt, IsString, Max, Min } from 'class-validator';

class ProbeDto {
  @IsString() name: string;
  @IsInt() @Min(1) @Max(10) count: number;
}

/**
 * Test-only endpoints on both surfaces: DTO validation and an unexpected failure, so the error
 * conventions are exercised independently of any feature module.
 */
@Controller()
class ProbeController {
  @Post('api/v1/document_proxy/__probe')
  documentProbe(@Body() dto: ProbeDto) {
    return { ok: true, dto };
  }

  @Post('api/v1/__probe')
  accountProbe(@Body() dto: ProbeDto) {
    return { ok: true, dto };
  }

  @Post('api/v1/document_proxy/__explode')
  explode(): never {
    throw new Error('relation "secret_table" does not exist: SELECT * FROM secret_table WHERE password = $1');
  }

  @Post('api/v1/__explode')
  explodeAccount(): never {
    throw new TypeError('Cannot read properties of undefined (reading "apiKey")');
  }
}

@Module({ controllers: [ProbeController] })
export class ProbeModule {}
