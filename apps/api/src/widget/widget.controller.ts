import { Controller, Get, Header, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { demoPage } from './demo-page';
import { WIDGET_SCRIPT } from './widget.script';

const KEY_SHAPE = /^cb_[A-Za-z0-9_-]{1,100}$/;

/** The embeddable chat widget (`/widget.js`) and its demo page. No credential: the key is in the page. */
@ApiTags('Chatbot: widget')
@Controller()
export class WidgetController {
  @Get('widget.js')
  @Header('Content-Type', 'application/javascript; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=300')
  // Pages anywhere load it with a <script> tag (also pages that require CORP with COEP).
  @Header('Cross-Origin-Resource-Policy', 'cross-origin')
  @ApiOperation({
    summary:
      'The chat widget: `<script src="https://host/widget.js" data-key="cb_..."></script>` renders a chat box ' +
      '(Shadow DOM) that streams answers, links citations and offers a support form.',
  })
  @ApiProduces('application/javascript')
  @ApiOkResponse({ description: 'JavaScript.' })
  script(): string {
    return WIDGET_SCRIPT;
  }

  @Get('widget/demo')
  @ApiOperation({ summary: 'Demo page of the widget; `?key=cb_...` embeds it with that key.' })
  @ApiQuery({ name: 'key', required: false, description: 'A chatbot key (for trying the widget).' })
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'HTML.' })
  demo(@Query('key') key: string | undefined, @Res() res: Response): void {
    const k = typeof key === 'string' && KEY_SHAPE.test(key) ? key : null;
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; " +
        "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    res.status(200).send(demoPage(k));
  }
}
