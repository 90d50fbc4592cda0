import { Module } from '@nestjs/common';
import { WidgetController } from './widget.controller';

/** `/widget.js` and `/widget/demo`. */
@Module({ controllers: [WidgetController] })
export class WidgetModule {}
