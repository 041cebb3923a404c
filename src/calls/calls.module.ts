import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CallsService } from './calls.service.js';
import { CallEntity } from './entities/call.entity.js';

@Module({
  imports: [TypeOrmModule.forFeature([CallEntity])],
  providers: [CallsService],
  exports: [CallsService],
})
export class CallsModule {}
